/**
 * The entity read answers promises in every case (issue 27 made `readEntity` and
 * `ReaderInterceptorContext.proceed()` plain functions returning promises instead of `async`
 * ones): a failure before or inside the reader is a rejection an interceptor can catch, never a
 * synchronous throw, and a reader answering a plain value still gives a promise.
 */
import 'reflect-metadata';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  POST,
  Path,
  JsonReader,
  Provider,
  type MediaType,
  type MessageBodyReader,
  type ReadContext,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
  type TypeToken,
} from '../../../src/index.js';

class Note {
  text!: string;
}

@Path('/notes')
class NotesResource {
  @POST()
  @Consumes('application/json', 'text/x-note')
  create(note: Note): { got: string } {
    return { got: note.text };
  }
}

/** Sees what `proceed()` gave: a promise (always), and its outcome. */
@Provider()
class Watcher implements ReaderInterceptor {
  static seen: string[] = [];
  aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    let p: Promise<unknown>;
    try {
      p = ctx.proceed();
    } catch {
      Watcher.seen.push('sync throw');
      throw new Error('proceed() threw synchronously');
    }
    Watcher.seen.push(p instanceof Promise ? 'promise' : 'not a promise');
    return p.then(
      (v) => {
        Watcher.seen.push('resolved');
        return v;
      },
      (e: unknown) => {
        Watcher.seen.push(`rejected ${(e as { status?: number }).status}`);
        throw e;
      },
    );
  }
}

/** A synchronous reader for `text/x-note`: its plain value still reaches the interceptor as a promise. */
@Provider()
class NoteReader implements MessageBodyReader<Note> {
  readonly consumes = ['text/x-note'];
  isReadable(type: TypeToken): boolean {
    return type === Note;
  }
  readFrom(): Note {
    return { text: 'from a synchronous reader' };
  }
}

function app(): Application {
  return new Application({ resources: [NotesResource], providers: [Watcher, NoteReader] });
}

describe('readEntity and proceed(): promises only', () => {
  it('a JSON body: the reader promise resolves through the interceptor', async () => {
    Watcher.seen = [];
    const res = await app().inject({
      method: 'POST',
      url: '/notes',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ got: 'hi' });
    expect(Watcher.seen).toEqual(['promise', 'resolved']);
  });

  it('a synchronous reader: its value comes back as a promise', async () => {
    Watcher.seen = [];
    const res = await app().inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'text/x-note' }, body: 'x' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ got: 'from a synchronous reader' });
    expect(Watcher.seen).toEqual(['promise', 'resolved']);
  });

  it('invalid JSON: a rejection the interceptor catches (400), not a synchronous throw', async () => {
    Watcher.seen = [];
    const res = await app().inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{"text":' });
    expect(res.status).toBe(400);
    expect(Watcher.seen).toEqual(['promise', 'rejected 400']);
  });
});

/** Overrides `readFrom`: the lifecycle must call the override, not the built-in reader's callback twin. */
@Provider()
class ShoutingJsonReader extends JsonReader {
  override async readFrom(type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<unknown> {
    const value = (await super.readFrom(type, mediaType, input, ctx)) as Note;
    return { text: value.text.toUpperCase() };
  }
}

describe('readers without interceptors: the entity reaches the method', () => {
  it('a JsonReader subclass overriding readFrom is called as written, over a socket and in-process', async () => {
    const a = new Application({ resources: [NotesResource], providers: [ShoutingJsonReader, NoteReader] });
    const { port } = await a.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"hi"}',
      });
      expect(await res.json()).toEqual({ got: 'HI' });
      const injected = await a.inject({
        method: 'POST',
        url: '/notes',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"yo"}',
      });
      expect(injected.json()).toEqual({ got: 'YO' });
    } finally {
      await a.close(1000);
    }
  });

  it('a synchronous reader: its value reaches the method', async () => {
    const sync = new Application({ resources: [NotesResource], providers: [NoteReader] });
    const r = await sync.inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'text/x-note' }, body: 'x' });
    expect(r.json()).toEqual({ got: 'from a synchronous reader' });
  });

  it('the built-in JSON reader: invalid JSON, a missing body and a body above the limit are answered', async () => {
    const a = new Application({ resources: [NotesResource], providers: [NoteReader], limits: { bodyLimit: 16 } });
    const bad = await a.inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{"text":' });
    expect([bad.status, bad.json()]).toMatchObject([400, { code: 'PIPE_INVALID_JSON' }]);
    const none = await a.inject({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect([none.status, none.json()]).toMatchObject([400, { code: 'PIPE_BODY_REQUIRED' }]);
    const big = await a.inject({
      method: 'POST',
      url: '/notes',
      headers: { 'content-type': 'application/json' },
      body: `{"text":"${'x'.repeat(40)}"}`,
    });
    expect([big.status, big.json()]).toMatchObject([413, { code: 'PIPE_BODY_TOO_LARGE' }]);
  });
});
