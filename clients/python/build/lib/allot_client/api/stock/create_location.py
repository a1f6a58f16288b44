from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.location import Location
from ...models.location_body import LocationBody
from typing import cast



def _get_kwargs(
    *,
    body: LocationBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/locations",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Location | None:
    if response.status_code == 201:
        response_201 = Location.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Location]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: LocationBody,

) -> Response[ErrorBody | Location]:
    """ `POST /v1/locations`. It takes no `Idempotency-Key` (`400` naming it) rather than ignore
    one: a location is named by its client, so a retry after a lost answer gets `409
    already_exists`, which says it was made.

    Args:
        body (LocationBody): `POST /v1/locations` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Location]
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
    body: LocationBody,

) -> ErrorBody | Location | None:
    """ `POST /v1/locations`. It takes no `Idempotency-Key` (`400` naming it) rather than ignore
    one: a location is named by its client, so a retry after a lost answer gets `409
    already_exists`, which says it was made.

    Args:
        body (LocationBody): `POST /v1/locations` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Location
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: LocationBody,

) -> Response[ErrorBody | Location]:
    """ `POST /v1/locations`. It takes no `Idempotency-Key` (`400` naming it) rather than ignore
    one: a location is named by its client, so a retry after a lost answer gets `409
    already_exists`, which says it was made.

    Args:
        body (LocationBody): `POST /v1/locations` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Location]
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
    body: LocationBody,

) -> ErrorBody | Location | None:
    """ `POST /v1/locations`. It takes no `Idempotency-Key` (`400` naming it) rather than ignore
    one: a location is named by its client, so a retry after a lost answer gets `409
    already_exists`, which says it was made.

    Args:
        body (LocationBody): `POST /v1/locations` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Location
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
