from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.resource import Resource
from ...models.resource_body import ResourceBody
from typing import cast



def _get_kwargs(
    resource: str,
    *,
    body: ResourceBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/resources/{resource}".format(resource=quote(str(resource), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Resource | None:
    if response.status_code == 200:
        response_200 = Resource.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Resource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    body: ResourceBody,

) -> Response[ErrorBody | Resource]:
    """ 
    Args:
        resource (str):
        body (ResourceBody): `PUT /v1/resources/{resource}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Resource]
     """


    kwargs = _get_kwargs(
        resource=resource,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    body: ResourceBody,

) -> ErrorBody | Resource | None:
    """ 
    Args:
        resource (str):
        body (ResourceBody): `PUT /v1/resources/{resource}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Resource
     """


    return sync_detailed(
        resource=resource,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    body: ResourceBody,

) -> Response[ErrorBody | Resource]:
    """ 
    Args:
        resource (str):
        body (ResourceBody): `PUT /v1/resources/{resource}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Resource]
     """


    kwargs = _get_kwargs(
        resource=resource,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    body: ResourceBody,

) -> ErrorBody | Resource | None:
    """ 
    Args:
        resource (str):
        body (ResourceBody): `PUT /v1/resources/{resource}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Resource
     """


    return (await asyncio_detailed(
        resource=resource,
client=client,
body=body,

    )).parsed
