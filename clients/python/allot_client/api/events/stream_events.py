from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    types: str | Unset = UNSET,
    object_: str | Unset = UNSET,
    sku: str | Unset = UNSET,
    last_event_id: int | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = str(last_event_id)




    

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params["types"] = types

    params["object"] = object_

    params["sku"] = sku


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events/stream",
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorBody | None:
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    types: str | Unset = UNSET,
    object_: str | Unset = UNSET,
    sku: str | Unset = UNSET,
    last_event_id: int | Unset = UNSET,

) -> Response[Any | ErrorBody]:
    """ 
    Args:
        after (int | Unset):
        limit (int | Unset):
        types (str | Unset):
        object_ (str | Unset):
        sku (str | Unset):
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
types=types,
object_=object_,
sku=sku,
last_event_id=last_event_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    types: str | Unset = UNSET,
    object_: str | Unset = UNSET,
    sku: str | Unset = UNSET,
    last_event_id: int | Unset = UNSET,

) -> Any | ErrorBody | None:
    """ 
    Args:
        after (int | Unset):
        limit (int | Unset):
        types (str | Unset):
        object_ (str | Unset):
        sku (str | Unset):
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
     """


    return sync_detailed(
        client=client,
after=after,
limit=limit,
types=types,
object_=object_,
sku=sku,
last_event_id=last_event_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    types: str | Unset = UNSET,
    object_: str | Unset = UNSET,
    sku: str | Unset = UNSET,
    last_event_id: int | Unset = UNSET,

) -> Response[Any | ErrorBody]:
    """ 
    Args:
        after (int | Unset):
        limit (int | Unset):
        types (str | Unset):
        object_ (str | Unset):
        sku (str | Unset):
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
types=types,
object_=object_,
sku=sku,
last_event_id=last_event_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    types: str | Unset = UNSET,
    object_: str | Unset = UNSET,
    sku: str | Unset = UNSET,
    last_event_id: int | Unset = UNSET,

) -> Any | ErrorBody | None:
    """ 
    Args:
        after (int | Unset):
        limit (int | Unset):
        types (str | Unset):
        object_ (str | Unset):
        sku (str | Unset):
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
after=after,
limit=limit,
types=types,
object_=object_,
sku=sku,
last_event_id=last_event_id,

    )).parsed
