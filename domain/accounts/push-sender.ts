// Pushes to registered mobile devices (issue 28 §6): a step-up challenge to answer on the phone.
// Providers (APNs, FCM) sit behind this interface; the default sender only logs that a push would
// go out — the device and the kind, never the token or the payload (it carries a challenge nonce).
import type { Logger } from '../log.ts';

export type PushTarget = { deviceId: string; platform: 'apns' | 'fcm'; token: string };
export type PushMessage = { kind: 'step_up_challenge'; title: string; body: string; data: Record<string, string> };

export interface PushSender {
  send(to: PushTarget, message: PushMessage): Promise<void>;
}

export class LogPushSender implements PushSender {
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  send(to: PushTarget, message: PushMessage): Promise<void> {
    this.log.info('push.logged', { device_id: to.deviceId, platform: to.platform, kind: message.kind });
    return Promise.resolve();
  }
}
