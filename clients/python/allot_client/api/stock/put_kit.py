from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.kit import Kit
from ...models.kit_body import KitBody
from typing import cast



def _get_kwargs(
    kit: str,
    *,
    body: KitBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/kits/{kit}".format(kit=quote(str(kit), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Kit | None:
    if response.status_code == 200:
        response_200 = Kit.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Kit]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    kit: str,
    *,
    client: AuthenticatedClient | Client,
    body: KitBody,

) -> Response[ErrorBody | Kit]:
    """ 
    Args:
        kit (str):
        body (KitBody): `PUT /v1/kits/{kit}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Kit]
     """


    kwargs = _get_kwargs(
        kit=kit,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    kit: str,
    *,
    client: AuthenticatedClient | Client,
    body: KitBody,

) -> ErrorBody | Kit | None:
    """ 
    Args:
        kit (str):
        body (KitBody): `PUT /v1/kits/{kit}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Kit
     """


    return sync_detailed(
        kit=kit,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    kit: str,
    *,
    client: AuthenticatedClient | Client,
    body: KitBody,

) -> Response[ErrorBody | Kit]:
    """ 
    Args:
        kit (str):
        body (KitBody): `PUT /v1/kits/{kit}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Kit]
     """


    kwargs = _get_kwargs(
        kit=kit,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    kit: str,
    *,
    client: AuthenticatedClient | Client,
    body: KitBody,

) -> ErrorBody | Kit | None:
    """ 
    Args:
        kit (str):
        body (KitBody): `PUT /v1/kits/{kit}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Kit
     """


    return (await asyncio_detailed(
        kit=kit,
client=client,
body=body,

    )).parsed
