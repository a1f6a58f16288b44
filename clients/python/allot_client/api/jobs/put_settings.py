from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.queue_settings import QueueSettings
from ...models.queue_settings_body import QueueSettingsBody
from typing import cast



def _get_kwargs(
    queue: str,
    *,
    body: QueueSettingsBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/queues/{queue}".format(queue=quote(str(queue), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | QueueSettings | None:
    if response.status_code == 200:
        response_200 = QueueSettings.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | QueueSettings]:
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
    body: QueueSettingsBody,

) -> Response[ErrorBody | QueueSettings]:
    """ 
    Args:
        queue (str):
        body (QueueSettingsBody): `PUT /v1/queues/{queue}` body: the queue's settings, replaced
            whole (a field left out is
            its default: not paused, no limit, no FIFO, completed jobs kept).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QueueSettings]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: QueueSettingsBody,

) -> ErrorBody | QueueSettings | None:
    """ 
    Args:
        queue (str):
        body (QueueSettingsBody): `PUT /v1/queues/{queue}` body: the queue's settings, replaced
            whole (a field left out is
            its default: not paused, no limit, no FIFO, completed jobs kept).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QueueSettings
     """


    return sync_detailed(
        queue=queue,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: QueueSettingsBody,

) -> Response[ErrorBody | QueueSettings]:
    """ 
    Args:
        queue (str):
        body (QueueSettingsBody): `PUT /v1/queues/{queue}` body: the queue's settings, replaced
            whole (a field left out is
            its default: not paused, no limit, no FIFO, completed jobs kept).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QueueSettings]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: QueueSettingsBody,

) -> ErrorBody | QueueSettings | None:
    """ 
    Args:
        queue (str):
        body (QueueSettingsBody): `PUT /v1/queues/{queue}` body: the queue's settings, replaced
            whole (a field left out is
            its default: not paused, no limit, no FIFO, completed jobs kept).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QueueSettings
     """


    return (await asyncio_detailed(
        queue=queue,
client=client,
body=body,

    )).parsed
