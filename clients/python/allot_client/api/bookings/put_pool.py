from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.pool import Pool
from ...models.pool_body import PoolBody
from typing import cast



def _get_kwargs(
    pool: str,
    *,
    body: PoolBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/pools/{pool}".format(pool=quote(str(pool), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Pool | None:
    if response.status_code == 200:
        response_200 = Pool.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Pool]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    pool: str,
    *,
    client: AuthenticatedClient | Client,
    body: PoolBody,

) -> Response[ErrorBody | Pool]:
    """ 
    Args:
        pool (str):
        body (PoolBody): `PUT /v1/pools/{pool}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Pool]
     """


    kwargs = _get_kwargs(
        pool=pool,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    pool: str,
    *,
    client: AuthenticatedClient | Client,
    body: PoolBody,

) -> ErrorBody | Pool | None:
    """ 
    Args:
        pool (str):
        body (PoolBody): `PUT /v1/pools/{pool}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Pool
     """


    return sync_detailed(
        pool=pool,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    pool: str,
    *,
    client: AuthenticatedClient | Client,
    body: PoolBody,

) -> Response[ErrorBody | Pool]:
    """ 
    Args:
        pool (str):
        body (PoolBody): `PUT /v1/pools/{pool}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Pool]
     """


    kwargs = _get_kwargs(
        pool=pool,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    pool: str,
    *,
    client: AuthenticatedClient | Client,
    body: PoolBody,

) -> ErrorBody | Pool | None:
    """ 
    Args:
        pool (str):
        body (PoolBody): `PUT /v1/pools/{pool}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Pool
     """


    return (await asyncio_detailed(
        pool=pool,
client=client,
body=body,

    )).parsed
