import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the fault server answers POST /v1/embeddings; `input` is the request's list of texts. */
export type EmbeddingAnswer = (input: string[], body: Record<string, unknown>) => { status: number; body: string } | 'hang';

/**
 * A tiny OpenAI-shaped embeddings server for the faults the scripted server does not play: wrong
 * dimensions, NaN, data that is not a list, 404, a hang. Records every request body.
 */
export class EmbeddingFaultServer {
  readonly bodies: Record<string, unknown>[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
    public answer: EmbeddingAnswer,
  ) {}

  static async start(answer: EmbeddingAnswer): Promise<EmbeddingFaultServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const fake = new EmbeddingFaultServer(server, `http://127.0.0.1:${port}/v1`, answer);
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>;
        fake.bodies.push(body);
        const input = Array.isArray(body['input']) ? (body['input'] as string[]) : [String(body['input'])];
        const answered = fake.answer(input, body);
        if (answered === 'hang') return;
        res.writeHead(answered.status, { 'content-type': 'application/json' });
        res.end(answered.body);
      });
    });
    return fake;
  }

  /** Texts per request, in arrival order. */
  get inputs(): string[][] {
    return this.bodies.map((body) => (Array.isArray(body['input']) ? (body['input'] as string[]) : [String(body['input'])]));
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }
}

/** A well-formed answer whose vectors come from `vector(text, index)`. */
export function vectorsAnswer(vector: (text: string, index: number) => unknown): EmbeddingAnswer {
  return (input) => ({
    status: 200,
    body: JSON.stringify({ object: 'list', model: 'm', data: input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text, index) })) }),
  });
}

/** A deterministic unit vector per text: a few words decide it, as in the scripted server. */
export function wordVector(text: string, dimensions = 8): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let hash = 0;
    for (let i = 0; i < word.length; i++) hash = (hash * 31 + word.charCodeAt(i)) >>> 0;
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + 1;
  }
  if (!vector.some((x) => x !== 0)) vector[0] = 1;
  return vector;
}
