// Device login for command-line clients (§4.3; reference facts §4.2; RFC 8628): the CLI asks for a
// code and polls; a signed-in human approves or denies the user code. The user code in the status
// path is a credential of sorts: masked wherever the path is recorded.
import { route } from '../../route.ts';
import { deviceCodeBody, deviceTokenBody, deviceUserCodeBody, deviceUserCodeParams } from './schema.ts';
import {
  DeviceCodeSchema, DeviceCodeStatusSchema, DeviceDecisionSchema, DeviceTokenSchema,
  presentDeviceCode, presentDeviceCodeStatus, presentDeviceDecision, presentDeviceToken,
} from '../../presenters/accounts.ts';

const decisionErrors = {
  403: 'The code was requested for another account; nothing changes',
  404: 'Unknown user code',
  409: 'The code was already approved or denied',
  410: 'The code has expired',
  429: 'Too many unknown or foreign codes from this account: wait Retry-After seconds',
};

export const deviceRoutes = [
  route({
    method: 'POST', path: '/v1/auth/device/code', tag: 'Authentication', auth: 'public',
    summary: 'Start a device login: a device code for the CLI to poll with and a user code to approve (valid 600 s); `email`, when given, is the only account that may approve',
    body: deviceCodeBody,
    success: { status: 200, description: 'Device code issued', schema: DeviceCodeSchema },
    handler: async ({ body, services: s }) => presentDeviceCode(await s.deviceLogin.request({ clientId: body.client_id, email: body.email })),
  }),
  route({
    method: 'GET', path: '/v1/auth/device/code/:user_code', tag: 'Authentication', auth: 'public',
    summary: 'Where a device login stands: pending, approved, denied or expired',
    params: deviceUserCodeParams, secretParams: ['user_code'],
    success: { status: 200, description: 'Device code details', schema: DeviceCodeStatusSchema },
    errors: { 404: 'Unknown user code', 429: 'Too many unknown codes from this address: wait Retry-After seconds' },
    handler: async ({ params, action, services: s }) => presentDeviceCodeStatus(await s.deviceLogin.status(action, params.user_code)),
  }),
  route({
    method: 'POST', path: '/v1/auth/device/approve', tag: 'Authentication', auth: 'user',
    summary: 'Approve a CLI device login: its next poll gets a token of the caller',
    body: deviceUserCodeBody,
    success: { status: 200, description: 'Device approved', schema: DeviceDecisionSchema },
    errors: decisionErrors,
    handler: async ({ body, action, services: s }) => presentDeviceDecision(await s.deviceLogin.decide(action, body.user_code, 'approved')),
  }),
  route({
    method: 'POST', path: '/v1/auth/device/deny', tag: 'Authentication', auth: 'user',
    summary: 'Deny a CLI device login: its next poll answers access_denied',
    body: deviceUserCodeBody,
    success: { status: 200, description: 'Device denied', schema: DeviceDecisionSchema },
    errors: decisionErrors,
    handler: async ({ body, action, services: s }) => presentDeviceDecision(await s.deviceLogin.decide(action, body.user_code, 'denied')),
  }),
  route({
    method: 'POST', path: '/v1/auth/device/token', tag: 'Authentication', auth: 'public',
    summary: 'Poll a device login (grant_type urn:ietf:params:oauth:grant-type:device_code): 200 with the token once, or with `error` authorization_pending, slow_down, access_denied or expired_token',
    body: deviceTokenBody,
    success: { status: 200, description: 'The token, or where the login stands as `error`', schema: DeviceTokenSchema },
    errors: { 400: 'grant_type is not the device-code grant (`error: unsupported_grant_type`), or the device_code is unknown (`error: invalid_grant`)' },
    handler: async ({ body, action, services: s }) => presentDeviceToken(await s.deviceLogin.poll(action, body.device_code, body.grant_type)),
  }),
];
