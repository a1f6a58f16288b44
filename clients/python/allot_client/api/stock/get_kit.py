from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.kit_availability import KitAvailability
from typing import cast



def _get_kwargs(
    kit: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/kits/{kit}".format(kit=quote(str(kit), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | KitAvailability | None:
    if response.status_code == 200:
        response_200 = KitAvailability.from_dict(response.json())



        return response_200

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | KitAvailability]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    kit: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ErrorBody | KitAvailability]:
    """ 
    Args:
        kit (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | KitAvailability]
     """


    kwargs = _get_kwargs(
        kit=kit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    kit: str,
    *,
    client: AuthenticatedClient | Client,

) -> ErrorBody | KitAvailability | None:
    """ 
    Args:
        kit (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | KitAvailability
     """


    return sync_detailed(
        kit=kit,
client=client,

    ).parsed

async def asyncio_detailed(
    kit: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ErrorBody | KitAvailability]:
    """ 
    Args:
        kit (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | KitAvailability]
     """


    kwargs = _get_kwargs(
        kit=kit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    kit: str,
    *,
    client: AuthenticatedClient | Client,

) -> ErrorBody | KitAvailability | None:
    """ 
    Args:
        kit (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | KitAvailability
     """


    return (await asyncio_detailed(
        kit=kit,
client=client,

    )).parsed
