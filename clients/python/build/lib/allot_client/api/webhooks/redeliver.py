from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.redeliver_body import RedeliverBody
from ...models.redelivered import Redelivered
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: RedeliverBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks/{id}/redeliver".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Redelivered | None:
    if response.status_code == 202:
        response_202 = Redelivered.from_dict(response.json())



        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Redelivered]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RedeliverBody,

) -> Response[ErrorBody | Redelivered]:
    """ 
    Args:
        id (str):
        body (RedeliverBody): `POST /v1/webhooks/{id}/redeliver` body: the events after `after`
            (and up to `until`,
            when given) go to the endpoint again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Redelivered]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RedeliverBody,

) -> ErrorBody | Redelivered | None:
    """ 
    Args:
        id (str):
        body (RedeliverBody): `POST /v1/webhooks/{id}/redeliver` body: the events after `after`
            (and up to `until`,
            when given) go to the endpoint again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Redelivered
     """


    return sync_detailed(
        id=id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RedeliverBody,

) -> Response[ErrorBody | Redelivered]:
    """ 
    Args:
        id (str):
        body (RedeliverBody): `POST /v1/webhooks/{id}/redeliver` body: the events after `after`
            (and up to `until`,
            when given) go to the endpoint again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Redelivered]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RedeliverBody,

) -> ErrorBody | Redelivered | None:
    """ 
    Args:
        id (str):
        body (RedeliverBody): `POST /v1/webhooks/{id}/redeliver` body: the events after `after`
            (and up to `until`,
            when given) go to the endpoint again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Redelivered
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
