from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.sku_page import SkuPage
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    available_below: int | Unset = UNSET,
    prefix: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params["available_below"] = available_below

    params["prefix"] = prefix


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/skus",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | SkuPage | None:
    if response.status_code == 200:
        response_200 = SkuPage.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | SkuPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    available_below: int | Unset = UNSET,
    prefix: str | Unset = UNSET,

) -> Response[ErrorBody | SkuPage]:
    """ 
    Args:
        after (str | Unset):
        limit (int | Unset):
        available_below (int | Unset):
        prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SkuPage]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
available_below=available_below,
prefix=prefix,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    available_below: int | Unset = UNSET,
    prefix: str | Unset = UNSET,

) -> ErrorBody | SkuPage | None:
    """ 
    Args:
        after (str | Unset):
        limit (int | Unset):
        available_below (int | Unset):
        prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SkuPage
     """


    return sync_detailed(
        client=client,
after=after,
limit=limit,
available_below=available_below,
prefix=prefix,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    available_below: int | Unset = UNSET,
    prefix: str | Unset = UNSET,

) -> Response[ErrorBody | SkuPage]:
    """ 
    Args:
        after (str | Unset):
        limit (int | Unset):
        available_below (int | Unset):
        prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SkuPage]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
available_below=available_below,
prefix=prefix,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    available_below: int | Unset = UNSET,
    prefix: str | Unset = UNSET,

) -> ErrorBody | SkuPage | None:
    """ 
    Args:
        after (str | Unset):
        limit (int | Unset):
        available_below (int | Unset):
        prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SkuPage
     """


    return (await asyncio_detailed(
        client=client,
after=after,
limit=limit,
available_below=available_below,
prefix=prefix,

    )).parsed
