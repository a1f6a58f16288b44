from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.hold_page import HoldPage
from ...models.hold_status import HoldStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    status: HoldStatus | Unset = UNSET,
    sku: str | Unset = UNSET,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["sku"] = sku

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/holds",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | HoldPage | None:
    if response.status_code == 200:
        response_200 = HoldPage.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | HoldPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: HoldStatus | Unset = UNSET,
    sku: str | Unset = UNSET,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | HoldPage]:
    """ 
    Args:
        status (HoldStatus | Unset): The life cycle of a hold. `held` is the only state with
            quantity set aside; the others
            are final.
        sku (str | Unset):
        after (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HoldPage]
     """


    kwargs = _get_kwargs(
        status=status,
sku=sku,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    status: HoldStatus | Unset = UNSET,
    sku: str | Unset = UNSET,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | HoldPage | None:
    """ 
    Args:
        status (HoldStatus | Unset): The life cycle of a hold. `held` is the only state with
            quantity set aside; the others
            are final.
        sku (str | Unset):
        after (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HoldPage
     """


    return sync_detailed(
        client=client,
status=status,
sku=sku,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: HoldStatus | Unset = UNSET,
    sku: str | Unset = UNSET,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | HoldPage]:
    """ 
    Args:
        status (HoldStatus | Unset): The life cycle of a hold. `held` is the only state with
            quantity set aside; the others
            are final.
        sku (str | Unset):
        after (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HoldPage]
     """


    kwargs = _get_kwargs(
        status=status,
sku=sku,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: HoldStatus | Unset = UNSET,
    sku: str | Unset = UNSET,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | HoldPage | None:
    """ 
    Args:
        status (HoldStatus | Unset): The life cycle of a hold. `held` is the only state with
            quantity set aside; the others
            are final.
        sku (str | Unset):
        after (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HoldPage
     """


    return (await asyncio_detailed(
        client=client,
status=status,
sku=sku,
after=after,
limit=limit,

    )).parsed
