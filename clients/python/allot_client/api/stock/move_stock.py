from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.move import Move
from ...models.move_body import MoveBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    sku: str,
    *,
    body: MoveBody,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/skus/{sku}/moves".format(sku=quote(str(sku), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Move | None:
    if response.status_code == 201:
        response_201 = Move.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Move]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: MoveBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | Move]:
    """ 
    Args:
        sku (str):
        idempotency_key (str | Unset):
        body (MoveBody): `POST /v1/skus/{sku}/moves` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Move]
     """


    kwargs = _get_kwargs(
        sku=sku,
body=body,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: MoveBody,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | Move | None:
    """ 
    Args:
        sku (str):
        idempotency_key (str | Unset):
        body (MoveBody): `POST /v1/skus/{sku}/moves` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Move
     """


    return sync_detailed(
        sku=sku,
client=client,
body=body,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: MoveBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | Move]:
    """ 
    Args:
        sku (str):
        idempotency_key (str | Unset):
        body (MoveBody): `POST /v1/skus/{sku}/moves` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Move]
     """


    kwargs = _get_kwargs(
        sku=sku,
body=body,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: MoveBody,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | Move | None:
    """ 
    Args:
        sku (str):
        idempotency_key (str | Unset):
        body (MoveBody): `POST /v1/skus/{sku}/moves` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Move
     """


    return (await asyncio_detailed(
        sku=sku,
client=client,
body=body,
idempotency_key=idempotency_key,

    )).parsed
