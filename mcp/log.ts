// The tool server's log: one JSON line per event on stderr, never stdout (with the stdio
// transport, stdout carries the protocol and nothing else). Callers pass tool names, statuses and
// ids, never arguments, bearer tokens or secret values.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type McpLogger = Record<LogLevel, (msg: string, fields?: Record<string, unknown>) => void>;

export function createMcpLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): McpLogger {
  const emit = (l: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[l] < ORDER[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: l, component: 'mcp', msg, ...fields })}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A logger that drops everything (tests, and callers that have none). */
export const silentLogger: McpLogger = createMcpLogger('error', () => {});
