from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.booking import Booking
from ...models.error_body import ErrorBody
from ...models.reschedule_booking_body import RescheduleBookingBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: RescheduleBookingBody,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/bookings/{id}/reschedule".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Booking | ErrorBody | None:
    if response.status_code == 200:
        response_200 = Booking.from_dict(response.json())



        return response_200

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Booking | ErrorBody]:
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
    body: RescheduleBookingBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Booking | ErrorBody]:
    """ 
    Args:
        id (str):
        idempotency_key (str | Unset):
        body (RescheduleBookingBody): `POST /v1/bookings/{id}/reschedule` body: the new range (and
            quantity), taken and the old
            one freed in one transaction.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Booking | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RescheduleBookingBody,
    idempotency_key: str | Unset = UNSET,

) -> Booking | ErrorBody | None:
    """ 
    Args:
        id (str):
        idempotency_key (str | Unset):
        body (RescheduleBookingBody): `POST /v1/bookings/{id}/reschedule` body: the new range (and
            quantity), taken and the old
            one freed in one transaction.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Booking | ErrorBody
     """


    return sync_detailed(
        id=id,
client=client,
body=body,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RescheduleBookingBody,
    idempotency_key: str | Unset = UNSET,

) -> Response[Booking | ErrorBody]:
    """ 
    Args:
        id (str):
        idempotency_key (str | Unset):
        body (RescheduleBookingBody): `POST /v1/bookings/{id}/reschedule` body: the new range (and
            quantity), taken and the old
            one freed in one transaction.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Booking | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RescheduleBookingBody,
    idempotency_key: str | Unset = UNSET,

) -> Booking | ErrorBody | None:
    """ 
    Args:
        id (str):
        idempotency_key (str | Unset):
        body (RescheduleBookingBody): `POST /v1/bookings/{id}/reschedule` body: the new range (and
            quantity), taken and the old
            one freed in one transaction.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Booking | ErrorBody
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,
idempotency_key=idempotency_key,

    )).parsed
