from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.claim_body import ClaimBody
from ...models.claimed import Claimed
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    queue: str,
    *,
    body: ClaimBody,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{queue}/claims".format(queue=quote(str(queue), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Claimed | ErrorBody | None:
    if response.status_code == 200:
        response_200 = Claimed.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Claimed | ErrorBody]:
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
    body: ClaimBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Claimed | ErrorBody]:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (ClaimBody): `POST /v1/queues/{queue}/claims` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Claimed | ErrorBody]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimBody,
    idempotency_key: str | Unset = UNSET,

) -> Claimed | ErrorBody | None:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (ClaimBody): `POST /v1/queues/{queue}/claims` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Claimed | ErrorBody
     """


    return sync_detailed(
        queue=queue,
client=client,
body=body,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Claimed | ErrorBody]:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (ClaimBody): `POST /v1/queues/{queue}/claims` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Claimed | ErrorBody]
     """


    kwargs = _get_kwargs(
        queue=queue,
body=body,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimBody,
    idempotency_key: str | Unset = UNSET,

) -> Claimed | ErrorBody | None:
    """ 
    Args:
        queue (str):
        idempotency_key (str | Unset):
        body (ClaimBody): `POST /v1/queues/{queue}/claims` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Claimed | ErrorBody
     """


    return (await asyncio_detailed(
        queue=queue,
client=client,
body=body,
idempotency_key=idempotency_key,

    )).parsed
