//! A pooled connection ([`Conn`]), its transactions ([`Tx`]) and how their statements reach
//! the server ([`Statements`]): as named prepared statements cached per connection (the
//! default), or, behind a transaction pooler, as unnamed ones.
//!
//! A transaction pooler (PgBouncer `pool_mode = transaction`) hands each transaction, and
//! each statement outside one, to whichever server connection is free, so a statement
//! prepared on one server connection is missing on the next (`26000
//! invalid_sql_statement_name`; PgBouncer docs, "Feature matrix for pooling modes"). With
//! [`Statements::Unnamed`] every statement is sent as one Parse/Bind/Describe/Execute/Sync
//! of the unnamed statement (tokio-postgres `query_typed`, PostgreSQL docs 55.2.3 "Extended
//! Query"), which a pooler carries whole. Its parameter types come from describing the
//! statement once per process on a direct connection to the database (not through the
//! pooler), remembered by SQL text.
//!
//! Call sites read as tokio-postgres reads: `prepare_cached` then `query`/`execute` with the
//! [`Stmt`] it gives, or a `&str` directly; the [`Db`] trait is implemented by [`Conn`] and
//! [`Tx`] alike, as deadpool's `GenericClient` is by its client and transaction.

use crate::engine::connect::PgTarget;
use async_trait::async_trait;
use deadpool_postgres::StatementCache;
use std::collections::HashMap;
use std::sync::Arc;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Error, Row, RowStream, Statement};

/// Most statement descriptions a [`Describer`] keeps; past it, it starts again.
const MAX_DESCRIBED: usize = 4096;

/// How statements are sent on pooled connections.
pub(crate) enum Statements {
    /// Named prepared statements, cached per connection (deadpool's `prepare_cached`).
    Prepared,
    /// Unnamed statements, their parameter types described on a direct connection.
    Unnamed(Box<Describer>),
}

/// Describes statements (their parameter types) on one direct connection to the database,
/// made on first use and again after it breaks; each SQL text once per process (at most
/// [`MAX_DESCRIBED`] remembered). Connecting and each description are bounded by
/// [`DESCRIBE_WAIT`]; past it the connection is dropped and the request fails unavailable,
/// so callers queued behind it wait at most that long each.
pub(crate) struct Describer {
    target: PgTarget,
    client: tokio::sync::Mutex<Option<(Client, tokio::task::JoinHandle<()>)>>,
    described: std::sync::Mutex<HashMap<Box<str>, Arc<[Type]>>>,
}

/// How long connecting to the direct URL, or one description on it, may take.
const DESCRIBE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl Describer {
    /// A describer over `target`, the database itself (never the pooler).
    pub(crate) fn new(mut target: PgTarget) -> Self {
        target.bound_connect(DESCRIBE_WAIT);
        Describer {
            target,
            client: tokio::sync::Mutex::new(None),
            described: Default::default(),
        }
    }

    fn remembered(&self, sql: &str) -> Option<Arc<[Type]>> {
        self.described
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(sql)
            .cloned()
    }

    /// The parameter types of `sql`. Errors: the database's (a statement it cannot
    /// prepare), or the direct connection's (it cannot be reached, or did not answer within
    /// [`DESCRIBE_WAIT`]: a closed connection's error).
    async fn describe(&self, sql: &str) -> Result<Arc<[Type]>, Error> {
        if let Some(types) = self.remembered(sql) {
            return Ok(types);
        }
        let mut held = self.client.lock().await;
        if held.as_ref().is_none_or(|(c, _)| c.is_closed()) {
            let (c, conn) = self.target.config().connect(self.target.tls()).await?;
            let task = tokio::spawn(async move {
                let _ = conn.await;
            });
            *held = Some((c, task));
        }
        let (c, task) = held.as_ref().expect("connected above");
        // Prepared by name and closed again (the Close goes out as the statement drops).
        let types: Arc<[Type]> = match tokio::time::timeout(DESCRIBE_WAIT, c.prepare(sql)).await {
            Ok(prepared) => prepared?.params().into(),
            Err(_) => {
                // No answer: the connection goes, and its closed client gives the error.
                task.abort();
                let (c, _) = held.take().expect("held above");
                let _ = tokio::time::timeout(DESCRIBE_WAIT, async {
                    while !c.is_closed() {
                        tokio::task::yield_now().await;
                    }
                })
                .await;
                // Closed: "connection closed" (unavailable). Should it still be open, the
                // statement fails on a relation that does not exist.
                let refused = c.simple_query("SELECT FROM allot_describe_timed_out").await;
                return Err(refused.err().unwrap_or_else(|| unreachable!("no such relation")));
            }
        };
        let mut described = self.described.lock().unwrap_or_else(|p| p.into_inner());
        if described.len() >= MAX_DESCRIBED {
            described.clear();
        }
        described.insert(sql.into(), types.clone());
        Ok(types)
    }
}

/// A statement ready to run: prepared on the connection, or described for the unnamed one.
pub(crate) enum Stmt {
    /// A named prepared statement of this connection.
    Named(Statement),
    /// The unnamed statement: its text and parameter types.
    Unnamed {
        /// The SQL text.
        sql: Arc<str>,
        /// Its parameters' types, as the database described them.
        types: Arc<[Type]>,
    },
}

/// What a statement argument may be: a [`Stmt`] or SQL text.
pub(crate) trait AsStmt: Sync {
    /// This argument as a [`StmtRef`].
    fn as_stmt(&self) -> StmtRef<'_>;
}

/// A borrowed statement argument.
pub(crate) enum StmtRef<'a> {
    /// A statement prepared (or described) before.
    Ready(&'a Stmt),
    /// SQL text, prepared (or described) now.
    Sql(&'a str),
}

impl AsStmt for Stmt {
    fn as_stmt(&self) -> StmtRef<'_> {
        StmtRef::Ready(self)
    }
}

impl AsStmt for str {
    fn as_stmt(&self) -> StmtRef<'_> {
        StmtRef::Sql(self)
    }
}

impl AsStmt for String {
    fn as_stmt(&self) -> StmtRef<'_> {
        StmtRef::Sql(self)
    }
}

/// Parameters of a statement, as tokio-postgres takes them.
pub(crate) type Params<'p> = [&'p (dyn ToSql + Sync)];

/// `params` paired with `types`, as `query_typed` takes them.
///
/// Panics when their counts differ: a statement given the wrong number of parameters is a
/// bug of the caller's code, as tokio-postgres's own check would report it.
fn typed<'p>(params: &'p Params<'p>, types: &[Type]) -> Vec<(&'p (dyn ToSql + Sync), Type)> {
    assert_eq!(
        params.len(),
        types.len(),
        "a statement given {} parameters for {}",
        params.len(),
        types.len()
    );
    params.iter().copied().zip(types.iter().cloned()).collect()
}

/// What a statement argument resolved to on a connection.
enum Resolved<'a> {
    Named(&'a Statement),
    Sql(&'a str),
    Unnamed(Arc<str>, Arc<[Type]>),
}

async fn resolve<'a>(statements: &Statements, stmt: StmtRef<'a>) -> Result<Resolved<'a>, Error> {
    Ok(match (stmt, statements) {
        (StmtRef::Ready(Stmt::Named(s)), _) => Resolved::Named(s),
        (StmtRef::Ready(Stmt::Unnamed { sql, types }), _) => Resolved::Unnamed(sql.clone(), types.clone()),
        (StmtRef::Sql(sql), Statements::Prepared) => Resolved::Sql(sql),
        (StmtRef::Sql(sql), Statements::Unnamed(d)) => Resolved::Unnamed(sql.into(), d.describe(sql).await?),
    })
}

/// Most statements [`PREPARED`] keeps per worker thread; past it, those of closed
/// connections go, then (if it is still full) all.
const MAX_PREPARED_KNOWN: usize = 4096;

/// Where a connection's statement cache is and where a constant SQL text is (with its length).
type PreparedKey = (usize, usize, usize);

/// A statement prepared on a connection, and that connection's statement cache (weakly).
type KnownStatement = (std::sync::Weak<StatementCache>, Statement);

thread_local! {
    /// Per worker thread, the statements already prepared on each connection, keyed by the
    /// addresses of the connection's statement cache (deadpool's, one per connection) and of
    /// the constant SQL text: a hit costs no hash of the text (deadpool's cache hashes the
    /// whole SQL with SipHash at every `prepare_cached`: 3 700 instructions for `atomic`'s
    /// statement, `allot bench cost`). Each entry keeps a `Weak` of its connection's cache,
    /// so that address is never another connection's while the entry lives, and an entry
    /// of a closed connection is never used. Hashed by FxHash (rustc's): the keys are this
    /// process's own addresses, nothing a client chooses.
    static PREPARED: std::cell::RefCell<rustc_hash::FxHashMap<PreparedKey, KnownStatement>> = Default::default();
}

fn prepared_key(cache: &Arc<StatementCache>, sql: &'static str) -> PreparedKey {
    (Arc::as_ptr(cache) as usize, sql.as_ptr() as usize, sql.len())
}

/// The statement `sql` prepared on the connection of `cache`, if this thread saw it.
fn known(cache: &Arc<StatementCache>, sql: &'static str) -> Option<Statement> {
    let key = prepared_key(cache, sql);
    PREPARED.with_borrow(|m| {
        m.get(&key)
            .filter(|(conn, _)| conn.strong_count() > 0)
            .map(|(_, s)| s.clone())
    })
}

/// Keep `stmt`, `sql` prepared on the connection of `cache`.
fn remember(cache: &Arc<StatementCache>, sql: &'static str, stmt: &Statement) {
    PREPARED.with_borrow_mut(|m| {
        if m.len() >= MAX_PREPARED_KNOWN {
            m.retain(|_, (conn, _)| conn.strong_count() > 0);
            if m.len() >= MAX_PREPARED_KNOWN {
                m.clear();
            }
        }
        m.insert(prepared_key(cache, sql), (Arc::downgrade(cache), stmt.clone()));
    });
}

/// The statements of a pooled connection or of a transaction on one: deadpool's
/// `GenericClient`, with [`Stmt`] for its statements. Implemented by [`Conn`] and [`Tx`].
#[async_trait]
pub(crate) trait Db: Sync {
    /// Prepare `sql` (cached per connection), or describe it for the unnamed statement.
    /// `sql` is a constant: its address names it in [`known`]'s cache.
    async fn prepare_cached(&self, sql: &'static str) -> Result<Stmt, Error>;
    /// As [`Db::prepare_cached`], for a text made at run time (deadpool's cache alone, by the
    /// text).
    async fn prepare_text(&self, sql: &str) -> Result<Stmt, Error>;
    /// The rows of `stmt`.
    async fn query<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Vec<Row>, Error>;
    /// The one row of `stmt` (an error for none or more).
    async fn query_one<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Row, Error>;
    /// The row of `stmt`, if any (an error for more than one).
    async fn query_opt<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Option<Row>, Error>;
    /// The rows of `stmt` as a stream.
    async fn query_raw<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<RowStream, Error>;
    /// Run `stmt`; the rows it changed.
    async fn execute<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<u64, Error>;
    /// Run `sql` (one or more statements, no parameters) by the simple query protocol.
    async fn batch_execute(&self, sql: &str) -> Result<(), Error>;
}

/// The [`Db`] methods of a type with a `cache()` (deadpool's statement cache, when it has
/// one), a `prepare_named()`, a `runner()` (what runs named statements and SQL text) and a
/// `client()` (tokio-postgres's, for the unnamed statement).
macro_rules! db_impl {
    ($ty:ty) => {
        #[async_trait]
        impl Db for $ty {
            async fn prepare_cached(&self, sql: &'static str) -> Result<Stmt, Error> {
                // Only named statements are kept (the pooler's unnamed ones are described).
                let prepared = matches!(*self.statements, Statements::Prepared);
                let cache = self.cache().filter(|_| prepared);
                if let Some(s) = cache.and_then(|c| known(c, sql)) {
                    return Ok(Stmt::Named(s));
                }
                let stmt = self.prepare_text(sql).await?;
                if let (Some(c), Stmt::Named(s)) = (cache, &stmt) {
                    remember(c, sql, s);
                }
                Ok(stmt)
            }
            async fn prepare_text(&self, sql: &str) -> Result<Stmt, Error> {
                Ok(match &*self.statements {
                    Statements::Prepared => Stmt::Named(self.prepare_named(sql).await?),
                    Statements::Unnamed(d) => Stmt::Unnamed {
                        sql: sql.into(),
                        types: d.describe(sql).await?,
                    },
                })
            }
            async fn query<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Vec<Row>, Error> {
                match resolve(&self.statements, stmt.as_stmt()).await? {
                    Resolved::Named(s) => self.runner().query(s, params).await,
                    Resolved::Sql(s) => self.runner().query(s, params).await,
                    Resolved::Unnamed(s, t) => self.client().query_typed(&s, &typed(params, &t)).await,
                }
            }
            async fn query_one<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Row, Error> {
                match resolve(&self.statements, stmt.as_stmt()).await? {
                    Resolved::Named(s) => self.runner().query_one(s, params).await,
                    Resolved::Sql(s) => self.runner().query_one(s, params).await,
                    Resolved::Unnamed(s, t) => self.client().query_typed_one(&s, &typed(params, &t)).await,
                }
            }
            async fn query_opt<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<Option<Row>, Error> {
                match resolve(&self.statements, stmt.as_stmt()).await? {
                    Resolved::Named(s) => self.runner().query_opt(s, params).await,
                    Resolved::Sql(s) => self.runner().query_opt(s, params).await,
                    Resolved::Unnamed(s, t) => self.client().query_typed_opt(&s, &typed(params, &t)).await,
                }
            }
            async fn query_raw<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<RowStream, Error> {
                match resolve(&self.statements, stmt.as_stmt()).await? {
                    Resolved::Named(s) => self.runner().query_raw(s, params.iter().copied()).await,
                    Resolved::Sql(s) => self.runner().query_raw(s, params.iter().copied()).await,
                    Resolved::Unnamed(s, t) => self.client().query_typed_raw(&s, typed(params, &t)).await,
                }
            }
            async fn execute<T: ?Sized + AsStmt>(&self, stmt: &T, params: &Params<'_>) -> Result<u64, Error> {
                match resolve(&self.statements, stmt.as_stmt()).await? {
                    Resolved::Named(s) => self.runner().execute(s, params).await,
                    Resolved::Sql(s) => self.runner().execute(s, params).await,
                    Resolved::Unnamed(s, t) => self.client().execute_typed(&s, &typed(params, &t)).await,
                }
            }
            async fn batch_execute(&self, sql: &str) -> Result<(), Error> {
                self.client().batch_execute(sql).await
            }
        }
    };
}

/// A pooled connection and how its statements are sent.
pub(crate) struct Conn {
    obj: deadpool_postgres::Object,
    statements: Arc<Statements>,
}

impl Conn {
    /// `obj` from a pool whose statements are sent as `statements` says.
    pub(crate) fn new(obj: deadpool_postgres::Object, statements: Arc<Statements>) -> Self {
        Conn { obj, statements }
    }

    fn cache(&self) -> Option<&Arc<StatementCache>> {
        Some(&self.obj.statement_cache)
    }

    async fn prepare_named(&self, sql: &str) -> Result<Statement, Error> {
        self.obj.prepare_cached(sql).await
    }

    fn runner(&self) -> &Client {
        &self.obj
    }

    /// The tokio-postgres client (for what needs no statement: `simple_query`, `is_closed`).
    pub(crate) fn client(&self) -> &Client {
        &self.obj
    }

    /// Begin a transaction (`BEGIN`).
    pub(crate) async fn transaction(&mut self) -> Result<Tx<'_>, Error> {
        let tx = self.obj.transaction().await?;
        Ok(Tx {
            tx: Inner::Pooled(tx),
            statements: self.statements.clone(),
        })
    }

    /// Begin a transaction at `isolation`, read-only or not (`build_transaction()` of
    /// tokio-postgres).
    pub(crate) async fn build_transaction(
        &mut self,
        isolation: tokio_postgres::IsolationLevel,
        read_only: bool,
    ) -> Result<Tx<'_>, Error> {
        let tx = self
            .obj
            .build_transaction()
            .isolation_level(isolation)
            .read_only(read_only)
            .start()
            .await?;
        Ok(Tx {
            tx: Inner::Pooled(tx),
            statements: self.statements.clone(),
        })
    }

    /// Take the connection out of its pool (it closes when dropped).
    pub(crate) fn detach(self) {
        drop(deadpool_postgres::Object::take(self.obj));
    }
}

db_impl!(Conn);

/// A transaction on a pooled connection, or a savepoint in a caller's own transaction (the
/// `*_in` functions); rolled back when dropped before [`Tx::commit`].
pub(crate) struct Tx<'a> {
    tx: Inner<'a>,
    statements: Arc<Statements>,
}

/// Whose transaction a [`Tx`] is.
enum Inner<'a> {
    /// Ours, on a pooled connection, with its connection's statement cache.
    Pooled(deadpool_postgres::Transaction<'a>),
    /// A savepoint of the caller's transaction: statements are prepared per use (no cache
    /// outlives the call), and its commit releases the savepoint, never the caller's
    /// transaction.
    Caller(tokio_postgres::Transaction<'a>),
}

impl<'a> Tx<'a> {
    /// A savepoint `sp` of a caller's transaction, as a [`Tx`] the write paths run on.
    pub(crate) fn caller(sp: tokio_postgres::Transaction<'a>) -> Self {
        Tx {
            tx: Inner::Caller(sp),
            statements: Arc::new(Statements::Prepared),
        }
    }
}

impl Tx<'_> {
    fn cache(&self) -> Option<&Arc<StatementCache>> {
        match &self.tx {
            Inner::Pooled(t) => Some(&t.statement_cache),
            Inner::Caller(_) => None,
        }
    }

    async fn prepare_named(&self, sql: &str) -> Result<Statement, Error> {
        match &self.tx {
            Inner::Pooled(t) => t.prepare_cached(sql).await,
            Inner::Caller(t) => t.prepare(sql).await,
        }
    }

    fn runner(&self) -> &tokio_postgres::Transaction<'_> {
        match &self.tx {
            Inner::Pooled(t) => t,
            Inner::Caller(t) => t,
        }
    }

    /// The tokio-postgres client the transaction runs on.
    pub(crate) fn client(&self) -> &Client {
        self.runner().client()
    }

    /// A savepoint named `name`: a transaction inside this one.
    pub(crate) async fn savepoint(&mut self, name: &str) -> Result<Tx<'_>, Error> {
        let tx = match &mut self.tx {
            Inner::Pooled(t) => Inner::Pooled(t.savepoint(name).await?),
            Inner::Caller(t) => Inner::Caller(t.savepoint(name).await?),
        };
        Ok(Tx {
            tx,
            statements: self.statements.clone(),
        })
    }

    /// Commit (for a caller's savepoint: release it).
    pub(crate) async fn commit(self) -> Result<(), Error> {
        match self.tx {
            Inner::Pooled(t) => t.commit().await,
            Inner::Caller(t) => t.commit().await,
        }
    }

    /// Roll back (for a caller's savepoint: roll back to it).
    pub(crate) async fn rollback(self) -> Result<(), Error> {
        match self.tx {
            Inner::Pooled(t) => t.rollback().await,
            Inner::Caller(t) => t.rollback().await,
        }
    }
}

db_impl!(Tx<'_>);
