from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.created_key import CreatedKey
from ...models.error_body import ErrorBody
from ...models.new_key_body import NewKeyBody
from typing import cast



def _get_kwargs(
    *,
    body: NewKeyBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CreatedKey | ErrorBody | None:
    if response.status_code == 201:
        response_201 = CreatedKey.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CreatedKey | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewKeyBody,

) -> Response[CreatedKey | ErrorBody]:
    """ `POST /v1/keys`. It takes no `Idempotency-Key` (`400` naming it): a replay would have to
    give the secret again, and allot never stores a secret. After a lost answer, list the keys
    and revoke the one whose secret never arrived.

    Args:
        body (NewKeyBody): `POST /v1/keys` body and `allot keys create` arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedKey | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewKeyBody,

) -> CreatedKey | ErrorBody | None:
    """ `POST /v1/keys`. It takes no `Idempotency-Key` (`400` naming it): a replay would have to
    give the secret again, and allot never stores a secret. After a lost answer, list the keys
    and revoke the one whose secret never arrived.

    Args:
        body (NewKeyBody): `POST /v1/keys` body and `allot keys create` arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedKey | ErrorBody
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewKeyBody,

) -> Response[CreatedKey | ErrorBody]:
    """ `POST /v1/keys`. It takes no `Idempotency-Key` (`400` naming it): a replay would have to
    give the secret again, and allot never stores a secret. After a lost answer, list the keys
    and revoke the one whose secret never arrived.

    Args:
        body (NewKeyBody): `POST /v1/keys` body and `allot keys create` arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedKey | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewKeyBody,

) -> CreatedKey | ErrorBody | None:
    """ `POST /v1/keys`. It takes no `Idempotency-Key` (`400` naming it): a replay would have to
    give the secret again, and allot never stores a secret. After a lost answer, list the keys
    and revoke the one whose secret never arrived.

    Args:
        body (NewKeyBody): `POST /v1/keys` body and `allot keys create` arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedKey | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
