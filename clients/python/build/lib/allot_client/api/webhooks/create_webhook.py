from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.created_webhook import CreatedWebhook
from ...models.error_body import ErrorBody
from ...models.webhook_body import WebhookBody
from typing import cast



def _get_kwargs(
    *,
    body: WebhookBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CreatedWebhook | ErrorBody | None:
    if response.status_code == 201:
        response_201 = CreatedWebhook.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CreatedWebhook | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WebhookBody,

) -> Response[CreatedWebhook | ErrorBody]:
    """ `POST /v1/webhooks`. Like `POST /v1/keys`, it takes no `Idempotency-Key` (the answer holds
    the secret); after a lost answer, list the endpoints and delete the one you did not get.

    Args:
        body (WebhookBody): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhook | ErrorBody]
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
    body: WebhookBody,

) -> CreatedWebhook | ErrorBody | None:
    """ `POST /v1/webhooks`. Like `POST /v1/keys`, it takes no `Idempotency-Key` (the answer holds
    the secret); after a lost answer, list the endpoints and delete the one you did not get.

    Args:
        body (WebhookBody): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhook | ErrorBody
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WebhookBody,

) -> Response[CreatedWebhook | ErrorBody]:
    """ `POST /v1/webhooks`. Like `POST /v1/keys`, it takes no `Idempotency-Key` (the answer holds
    the secret); after a lost answer, list the endpoints and delete the one you did not get.

    Args:
        body (WebhookBody): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhook | ErrorBody]
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
    body: WebhookBody,

) -> CreatedWebhook | ErrorBody | None:
    """ `POST /v1/webhooks`. Like `POST /v1/keys`, it takes no `Idempotency-Key` (the answer holds
    the secret); after a lost answer, list the endpoints and delete the one you did not get.

    Args:
        body (WebhookBody): `POST /v1/webhooks` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhook | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
