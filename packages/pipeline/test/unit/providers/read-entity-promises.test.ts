/**
 * The entity read answers promises in every case (issue 27 made `readEntity` and
 * `ReaderInterceptorContext.proceed()` plain functions returning promises instead of `async`
 * ones): a failure before or inside the reader is a rejection an interceptor can catch, never a
 * synchronous throw, and a reader answering a plain value still gives a promise.
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  POST,
  Path,
  Provider,
  type MessageBodyReader,
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
