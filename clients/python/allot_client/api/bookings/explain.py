from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.explain import Explain
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    resource: str,
    *,
    start: str,
    end: str,
    quantity: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["start"] = start

    params["end"] = end

    params["quantity"] = quantity


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/resources/{resource}/explain".format(resource=quote(str(resource), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Explain | None:
    if response.status_code == 200:
        response_200 = Explain.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Explain]:
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
    start: str,
    end: str,
    quantity: int | Unset = UNSET,

) -> Response[ErrorBody | Explain]:
    """ 
    Args:
        resource (str):
        start (str):
        end (str):
        quantity (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Explain]
     """


    kwargs = _get_kwargs(
        resource=resource,
start=start,
end=end,
quantity=quantity,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    start: str,
    end: str,
    quantity: int | Unset = UNSET,

) -> ErrorBody | Explain | None:
    """ 
    Args:
        resource (str):
        start (str):
        end (str):
        quantity (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Explain
     """


    return sync_detailed(
        resource=resource,
client=client,
start=start,
end=end,
quantity=quantity,

    ).parsed

async def asyncio_detailed(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    start: str,
    end: str,
    quantity: int | Unset = UNSET,

) -> Response[ErrorBody | Explain]:
    """ 
    Args:
        resource (str):
        start (str):
        end (str):
        quantity (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Explain]
     """


    kwargs = _get_kwargs(
        resource=resource,
start=start,
end=end,
quantity=quantity,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    start: str,
    end: str,
    quantity: int | Unset = UNSET,

) -> ErrorBody | Explain | None:
    """ 
    Args:
        resource (str):
        start (str):
        end (str):
        quantity (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Explain
     """


    return (await asyncio_detailed(
        resource=resource,
client=client,
start=start,
end=end,
quantity=quantity,

    )).parsed
