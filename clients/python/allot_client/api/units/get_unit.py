from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.unit_view import UnitView
from typing import cast



def _get_kwargs(
    sku: str,
    serial: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/skus/{sku}/units/{serial}".format(sku=quote(str(sku), safe=""),serial=quote(str(serial), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | UnitView | None:
    if response.status_code == 200:
        response_200 = UnitView.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | UnitView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sku: str,
    serial: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ErrorBody | UnitView]:
    """ 
    Args:
        sku (str):
        serial (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UnitView]
     """


    kwargs = _get_kwargs(
        sku=sku,
serial=serial,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sku: str,
    serial: str,
    *,
    client: AuthenticatedClient | Client,

) -> ErrorBody | UnitView | None:
    """ 
    Args:
        sku (str):
        serial (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UnitView
     """


    return sync_detailed(
        sku=sku,
serial=serial,
client=client,

    ).parsed

async def asyncio_detailed(
    sku: str,
    serial: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ErrorBody | UnitView]:
    """ 
    Args:
        sku (str):
        serial (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UnitView]
     """


    kwargs = _get_kwargs(
        sku=sku,
serial=serial,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sku: str,
    serial: str,
    *,
    client: AuthenticatedClient | Client,

) -> ErrorBody | UnitView | None:
    """ 
    Args:
        sku (str):
        serial (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UnitView
     """


    return (await asyncio_detailed(
        sku=sku,
serial=serial,
client=client,

    )).parsed
