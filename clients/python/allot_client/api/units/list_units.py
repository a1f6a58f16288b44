from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.unit_page import UnitPage
from ...models.unit_status import UnitStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    sku: str,
    *,
    status: UnitStatus | Unset = UNSET,
    location: str | Unset = UNSET,
    lot: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["location"] = location

    params["lot"] = lot

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/skus/{sku}/units".format(sku=quote(str(sku), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | UnitPage | None:
    if response.status_code == 200:
        response_200 = UnitPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | UnitPage]:
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
    status: UnitStatus | Unset = UNSET,
    location: str | Unset = UNSET,
    lot: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | UnitPage]:
    """ 
    Args:
        sku (str):
        status (UnitStatus | Unset): Where a unit stands.
        location (str | Unset):
        lot (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UnitPage]
     """


    kwargs = _get_kwargs(
        sku=sku,
status=status,
location=location,
lot=lot,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    status: UnitStatus | Unset = UNSET,
    location: str | Unset = UNSET,
    lot: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | UnitPage | None:
    """ 
    Args:
        sku (str):
        status (UnitStatus | Unset): Where a unit stands.
        location (str | Unset):
        lot (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UnitPage
     """


    return sync_detailed(
        sku=sku,
client=client,
status=status,
location=location,
lot=lot,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    status: UnitStatus | Unset = UNSET,
    location: str | Unset = UNSET,
    lot: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | UnitPage]:
    """ 
    Args:
        sku (str):
        status (UnitStatus | Unset): Where a unit stands.
        location (str | Unset):
        lot (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UnitPage]
     """


    kwargs = _get_kwargs(
        sku=sku,
status=status,
location=location,
lot=lot,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    status: UnitStatus | Unset = UNSET,
    location: str | Unset = UNSET,
    lot: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | UnitPage | None:
    """ 
    Args:
        sku (str):
        status (UnitStatus | Unset): Where a unit stands.
        location (str | Unset):
        lot (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UnitPage
     """


    return (await asyncio_detailed(
        sku=sku,
client=client,
status=status,
location=location,
lot=lot,
after=after,
limit=limit,

    )).parsed
