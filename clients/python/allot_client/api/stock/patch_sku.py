from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.sku import Sku
from ...models.sku_settings_body import SkuSettingsBody
from typing import cast



def _get_kwargs(
    sku: str,
    *,
    body: SkuSettingsBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/skus/{sku}".format(sku=quote(str(sku), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | Sku | None:
    if response.status_code == 200:
        response_200 = Sku.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | Sku]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: SkuSettingsBody,

) -> Response[ErrorBody | Sku]:
    """ `PATCH /v1/skus/{sku}`: settings that move no stock (the `sku.low_stock` threshold, the
    `backorder_limit`), each kept when absent. Setting a value is idempotent by itself: no
    `Idempotency-Key` is needed. Both are validated before either is written.

    Args:
        sku (str):
        body (SkuSettingsBody): `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock,
            at least one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Sku]
     """


    kwargs = _get_kwargs(
        sku=sku,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: SkuSettingsBody,

) -> ErrorBody | Sku | None:
    """ `PATCH /v1/skus/{sku}`: settings that move no stock (the `sku.low_stock` threshold, the
    `backorder_limit`), each kept when absent. Setting a value is idempotent by itself: no
    `Idempotency-Key` is needed. Both are validated before either is written.

    Args:
        sku (str):
        body (SkuSettingsBody): `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock,
            at least one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Sku
     """


    return sync_detailed(
        sku=sku,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: SkuSettingsBody,

) -> Response[ErrorBody | Sku]:
    """ `PATCH /v1/skus/{sku}`: settings that move no stock (the `sku.low_stock` threshold, the
    `backorder_limit`), each kept when absent. Setting a value is idempotent by itself: no
    `Idempotency-Key` is needed. Both are validated before either is written.

    Args:
        sku (str):
        body (SkuSettingsBody): `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock,
            at least one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Sku]
     """


    kwargs = _get_kwargs(
        sku=sku,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sku: str,
    *,
    client: AuthenticatedClient | Client,
    body: SkuSettingsBody,

) -> ErrorBody | Sku | None:
    """ `PATCH /v1/skus/{sku}`: settings that move no stock (the `sku.low_stock` threshold, the
    `backorder_limit`), each kept when absent. Setting a value is idempotent by itself: no
    `Idempotency-Key` is needed. Both are validated before either is written.

    Args:
        sku (str):
        body (SkuSettingsBody): `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock,
            at least one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Sku
     """


    return (await asyncio_detailed(
        sku=sku,
client=client,
body=body,

    )).parsed
