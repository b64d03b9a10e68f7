// Local stand-ins for model providers on 127.0.0.1, speaking the real wire protocols: OpenAI chat
// completions (`POST /v1/chat/completions`, Bearer key) and Anthropic messages (`POST
// /v1/messages`, `x-api-key` and `anthropic-version`), with the real answer and error shapes.
// Every request is recorded (headers included, so a test can see the key arrive). Answers are
// scripted in order (text with usage, an HTTP error with headers, a refusal, a body that is not
// JSON); when the script is empty the default answer is given.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export type FakeProtocol = 'openai' | 'anthropic';

export type AiReply =
  /** A normal answer. `usage` defaults to 10 input and 5 output tokens; `model` to the one asked for. */
  | { text: string; usage?: { input: number; output: number }; model?: string; finish?: string }
  /** The model declines (OpenAI: `message.refusal`; Anthropic: `stop_reason: "refusal"`). */
  | { refusal: string; usage?: { input: number; output: number } }
  /** An error answer in the provider's own shape (e.g. 429 with Retry-After, 500, 401). */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** Exactly this body with status 200 (malformed JSON, a JSON object that is no answer). */
  | { raw: string };

export type RecordedAiRequest = { method: string; path: string; headers: http.IncomingHttpHeaders; body: any };

export type FakeAiServer = {
  protocol: FakeProtocol;
  /** The base URL as the service expects it for this protocol (OpenAI: with /v1). */
  baseUrl: string;
  requests: () => RecordedAiRequest[];
  /** Answers for the next requests, in order. */
  script: (...replies: AiReply[]) => void;
  /** The answer once the script is used up: a reply, or a function of the request. */
  setDefault: (reply: AiReply | ((req: RecordedAiRequest) => AiReply)) => void;
  /** Forgets recorded requests and the script (the default stays). */
  reset: () => void;
  stop: () => Promise<void>;
};

export type FakeAiOptions = {
  /** When set, requests must carry it (else 401, as the real APIs answer). */
  apiKey?: string;
  defaultReply?: AiReply | ((req: RecordedAiRequest) => AiReply);
};

const PATHS: Record<FakeProtocol, string> = { openai: '/v1/chat/completions', anthropic: '/v1/messages' };

export async function startFakeAiServer(protocol: FakeProtocol, opts: FakeAiOptions = {}): Promise<FakeAiServer> {
  const recorded: RecordedAiRequest[] = [];
  let queue: AiReply[] = [];
  let fallback: AiReply | ((req: RecordedAiRequest) => AiReply) = opts.defaultReply ?? { text: 'fake answer' };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = text;
      try { body = JSON.parse(text); } catch { /* recorded as text */ }
      const r: RecordedAiRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      recorded.push(r);
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      if (req.method !== 'POST' || r.path !== PATHS[protocol]) {
        send(404, errorBody(protocol, 404, `Unknown path ${r.path}`));
        return;
      }
      const authProblem = checkHeaders(protocol, req.headers, opts.apiKey);
      if (authProblem) {
        send(authProblem.status, errorBody(protocol, authProblem.status, authProblem.message));
        return;
      }
      const next = queue.shift() ?? (typeof fallback === 'function' ? fallback(r) : fallback);
      if ('raw' in next) { send(200, next.raw); return; }
      if ('status' in next) { send(next.status, errorBody(protocol, next.status, next.message ?? 'fake error'), next.headers); return; }
      send(200, answerBody(protocol, next, typeof body?.model === 'string' ? body.model : 'unknown'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const root = `http://127.0.0.1:${port}`;
  return {
    protocol,
    baseUrl: protocol === 'openai' ? `${root}/v1` : root,
    requests: () => recorded.slice(),
    script: (...replies) => { queue.push(...replies); },
    setDefault: (reply) => { fallback = reply; },
    reset: () => { recorded.length = 0; queue = []; },
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function checkHeaders(protocol: FakeProtocol, h: http.IncomingHttpHeaders, key: string | undefined): { status: number; message: string } | null {
  if (protocol === 'anthropic') {
    if (!h['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
    if (key !== undefined && h['x-api-key'] !== key) return { status: 401, message: 'invalid x-api-key' };
    return null;
  }
  if (key !== undefined && h.authorization !== `Bearer ${key}`) {
    return { status: 401, message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.' };
  }
  return null;
}

function answerBody(protocol: FakeProtocol, reply: Exclude<AiReply, { raw: string } | { status: number }>, askedModel: string): unknown {
  const usage = reply.usage ?? { input: 10, output: 5 };
  const model = 'text' in reply && reply.model ? reply.model : askedModel;
  if (protocol === 'openai') {
    const refusal = 'refusal' in reply;
    return {
      id: `chatcmpl-${randomUUID()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
      choices: [{
        index: 0, logprobs: null,
        message: { role: 'assistant', content: refusal ? null : reply.text, refusal: refusal ? reply.refusal : null },
        finish_reason: refusal ? 'stop' : reply.finish ?? 'stop',
      }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    };
  }
  const refusal = 'refusal' in reply;
  return {
    id: `msg_${randomUUID().replace(/-/g, '')}`, type: 'message', role: 'assistant', model,
    content: refusal ? (reply.refusal ? [{ type: 'text', text: reply.refusal }] : []) : [{ type: 'text', text: reply.text }],
    stop_reason: refusal ? 'refusal' : reply.finish ?? 'end_turn', stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

function errorBody(protocol: FakeProtocol, status: number, message: string): unknown {
  if (protocol === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : status === 529 ? 'overloaded_error'
      : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } };
}
