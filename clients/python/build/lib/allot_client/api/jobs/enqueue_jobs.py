from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.enqueue_body import EnqueueBody
from ...models.enqueued import Enqueued
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    queue: str,
    *,
    body: EnqueueBody,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{queue}/jobs".format(queue=quote(str(queue), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Enqueued | ErrorBody | None:
    if response.status_code == 201:
        response_201 = Enqueued.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Enqueued | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: EnqueueBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Enqueued | ErrorBody]:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (EnqueueBody): `POST /v1/queues/{queue}/jobs` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enqueued | ErrorBody]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: EnqueueBody,
    idempotency_key: str | Unset = UNSET,

) -> Enqueued | ErrorBody | None:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (EnqueueBody): `POST /v1/queues/{queue}/jobs` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enqueued | ErrorBody
     """


    return sync_detailed(
        queue=queue,
client=client,
body=body,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: EnqueueBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Enqueued | ErrorBody]:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (EnqueueBody): `POST /v1/queues/{queue}/jobs` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enqueued | ErrorBody]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: EnqueueBody,
    idempotency_key: str | Unset = UNSET,

) -> Enqueued | ErrorBody | None:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (EnqueueBody): `POST /v1/queues/{queue}/jobs` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enqueued | ErrorBody
     """


    return (await asyncio_detailed(
        queue=queue,
client=client,
body=body,
idempotency_key=idempotency_key,

    )).parsed
