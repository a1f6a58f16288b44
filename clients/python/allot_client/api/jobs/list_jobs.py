from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_list import JobList
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    queue: str,
    *,
    state: str | Unset = UNSET,
    tag: str | Unset = UNSET,
    metadata: str | Unset = UNSET,
    payload: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["state"] = state

    params["tag"] = tag

    params["metadata"] = metadata

    params["payload"] = payload

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/queues/{queue}/jobs".format(queue=quote(str(queue), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobList | None:
    if response.status_code == 200:
        response_200 = JobList.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobList]:
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
    state: str | Unset = UNSET,
    tag: str | Unset = UNSET,
    metadata: str | Unset = UNSET,
    payload: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | JobList]:
    """ 
    Args:
        queue (str):
        state (str | Unset):
        tag (str | Unset):
        metadata (str | Unset):
        payload (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        queue=queue,
state=state,
tag=tag,
metadata=metadata,
payload=payload,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: str | Unset = UNSET,
    tag: str | Unset = UNSET,
    metadata: str | Unset = UNSET,
    payload: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | JobList | None:
    """ 
    Args:
        queue (str):
        state (str | Unset):
        tag (str | Unset):
        metadata (str | Unset):
        payload (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobList
     """


    return sync_detailed(
        queue=queue,
client=client,
state=state,
tag=tag,
metadata=metadata,
payload=payload,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: str | Unset = UNSET,
    tag: str | Unset = UNSET,
    metadata: str | Unset = UNSET,
    payload: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | JobList]:
    """ 
    Args:
        queue (str):
        state (str | Unset):
        tag (str | Unset):
        metadata (str | Unset):
        payload (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        queue=queue,
state=state,
tag=tag,
metadata=metadata,
payload=payload,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: str | Unset = UNSET,
    tag: str | Unset = UNSET,
    metadata: str | Unset = UNSET,
    payload: str | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | JobList | None:
    """ 
    Args:
        queue (str):
        state (str | Unset):
        tag (str | Unset):
        metadata (str | Unset):
        payload (str | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobList
     """


    return (await asyncio_detailed(
        queue=queue,
client=client,
state=state,
tag=tag,
metadata=metadata,
payload=payload,
after=after,
limit=limit,

    )).parsed
