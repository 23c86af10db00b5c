// HTTP spoken by hand over a socket, for requests no well-behaved client would send: incomplete
// bodies, malformed request lines, oversized headers.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Still open unless the server closed it; the caller destroys it. */
  socket: net.Socket;
}

/**
 * Opens a connection, writes `data` (which may stop mid-body) and resolves with the first
 * complete response, while the connection may still be waiting for the rest of the request.
 * Rejects if the server closes the connection before a whole response arrived.
 */
export function exchange(port: number, data: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    socket.on('error', () => {}); // a reset after the answer changes nothing
    socket.on('connect', () => socket.write(data));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (done || end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? Number.NaN);
      if (!Number.isInteger(length) || received.length - end - 4 < length) return;
      done = true;
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: received.subarray(end + 4, end + 4 + length).toString('utf8'), socket });
    });
    socket.on('close', () => {
      if (!done) reject(new Error(`connection closed without a complete response: ${JSON.stringify(received.toString('latin1'))}`));
    });
  });
}
