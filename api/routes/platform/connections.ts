// Connections between platform apps and users (spec §4.15): the app's connected users (the app
// itself, or its organization's owners and admins), and a user's connected apps, which the user may
// disconnect (domain/platform/connection-commands.ts).
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { platformAppParams } from './schema.ts';
import {
  ConnectedAppListSchema, ConnectedAppSchema, PlatformAppStatsSchema, PlatformConnectedUserListSchema, presentAppUsers, presentConnectedApp, presentConnectedApps,
} from '../../presenters/platform.ts';

const connectionParams = z.object({ connectionId: idParam });
const consentBody = z.object({ app_slug: z.string().min(1).max(64) });

export const platformConnectionRoutes = [
  route({
    method: 'GET', path: '/v1/platform/apps/:appId/users', tag: 'Platform', auth: 'user_or_platform',
    summary: "The app's connected users (disconnected ones included), oldest first",
    params: platformAppParams,
    success: { status: 200, description: 'The connections', schema: PlatformConnectedUserListSchema },
    errors: { 403: "Not an owner or admin of the app's organization", 404: 'App not found (or another app than the key\'s)' },
    handler: async ({ params, action, services: s }) => presentAppUsers(await s.platformConnections.appUsers(action, params.appId)),
  }),
  route({
    method: 'GET', path: '/v1/platform/apps/:appId/stats', tag: 'Platform', auth: 'user_or_platform',
    summary: "The app's connections (all, live, claimed), bootstraps and grants, counted",
    params: platformAppParams,
    success: { status: 200, description: 'The counts', schema: PlatformAppStatsSchema },
    errors: { 403: "Not an owner or admin of the app's organization", 404: 'App not found (or another app than the key\'s)' },
    handler: async ({ params, action, services: s }) => s.platformConnections.stats(action, params.appId),
  }),
  route({
    method: 'GET', path: '/v1/platform/connected-apps', tag: 'Platform', auth: 'user',
    summary: 'The platform apps connected to your account',
    success: { status: 200, description: 'Your live connections', schema: ConnectedAppListSchema },
    errors: { 403: 'Agents and platform keys never' },
    handler: async ({ action, services: s }) => presentConnectedApps(await s.platformConnections.connectedApps(action)),
  }),
  route({
    method: 'POST', path: '/v1/platform/connected-apps', tag: 'Platform', auth: 'user',
    summary: "Connect an app to your account (your consent: what users/upsert's link_required asks for)",
    body: consentBody,
    success: {
      status: 201, description: 'The connection', schema: ConnectedAppSchema,
      also: [{ status: 200, description: 'The app was connected already: that connection' }],
    },
    errors: { 403: "Agents and platform keys never; resource_limit_exceeded (the app's max_connected_users)", 404: 'No active app with this slug' },
    handler: async ({ ctx, body, action, services: s }) => {
      const r = await s.platformConnections.connect(action, body.app_slug);
      if (!r.created) ctx.state.successStatus = 200;
      return presentConnectedApp(r.connection);
    },
  }),
  route({
    method: 'DELETE', path: '/v1/platform/connected-apps/:connectionId', tag: 'Platform', auth: 'user',
    summary: 'Disconnect an app from your account: its reach ends at once',
    params: connectionParams,
    success: { status: 204, description: 'Disconnected' },
    errors: { 403: 'Agents and platform keys never', 404: 'No such live connection of yours' },
    handler: async ({ params, action, services: s }) => s.platformConnections.disconnect(action, params.connectionId),
  }),
];
