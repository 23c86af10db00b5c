// Every error a policy can cause names the place in its source: file:line:column.

export interface Pos {
  file: string;
  line: number;
  column: number;
}

export const formatPos = (p: Pos) => `${p.file}:${p.line}:${p.column}`;

/** A parse or runtime error in policy code, with the position of the construct at fault. */
export class SentinelError extends Error {
  readonly pos: Pos;
  constructor(message: string, pos: Pos) {
    super(`${formatPos(pos)}: ${message}`);
    this.name = 'SentinelError';
    this.pos = pos;
    this.detail = message;
  }
  /** The message without its position. */
  readonly detail: string;
}

/** The evaluation ran past its step or time bound. */
export class LimitError extends SentinelError {
  constructor(message: string, pos: Pos) {
    super(message, pos);
    this.name = 'LimitError';
  }
}

/** The policy asked for something Hangar does not give policies: the network. */
export class NetworkError extends SentinelError {
  constructor(message: string, pos: Pos) {
    super(message, pos);
    this.name = 'NetworkError';
  }
}
