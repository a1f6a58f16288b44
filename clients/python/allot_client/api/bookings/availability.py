from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.availability import Availability
from ...models.error_body import ErrorBody
from typing import cast



def _get_kwargs(
    resource: str,
    *,
    from_: str,
    to: str,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["from"] = from_

    params["to"] = to


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/resources/{resource}/availability".format(resource=quote(str(resource), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Availability | ErrorBody | None:
    if response.status_code == 200:
        response_200 = Availability.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Availability | ErrorBody]:
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
    from_: str,
    to: str,

) -> Response[Availability | ErrorBody]:
    """ 
    Args:
        resource (str):
        from_ (str):
        to (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Availability | ErrorBody]
     """


    kwargs = _get_kwargs(
        resource=resource,
from_=from_,
to=to,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    from_: str,
    to: str,

) -> Availability | ErrorBody | None:
    """ 
    Args:
        resource (str):
        from_ (str):
        to (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Availability | ErrorBody
     """


    return sync_detailed(
        resource=resource,
client=client,
from_=from_,
to=to,

    ).parsed

async def asyncio_detailed(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    from_: str,
    to: str,

) -> Response[Availability | ErrorBody]:
    """ 
    Args:
        resource (str):
        from_ (str):
        to (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Availability | ErrorBody]
     """


    kwargs = _get_kwargs(
        resource=resource,
from_=from_,
to=to,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    resource: str,
    *,
    client: AuthenticatedClient | Client,
    from_: str,
    to: str,

) -> Availability | ErrorBody | None:
    """ 
    Args:
        resource (str):
        from_ (str):
        to (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Availability | ErrorBody
     """


    return (await asyncio_detailed(
        resource=resource,
client=client,
from_=from_,
to=to,

    )).parsed
