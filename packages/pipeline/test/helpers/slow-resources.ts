/**
 * The resources the close and limit tests share: `GET /slow` stays in its handler until the test
 * releases it (the in-flight request that `close()` drains), `GET /fast` answers at once (the
 * request that arrives while the application closes), and `GET /hang` never answers (the request
 * a deadline cuts). The test controls the order through the gates' deferreds, never through sleeps.
 */
import { GET, Path, type Constructor } from '../../src/index.js';
import { deferred, type Deferred } from './deferred.js';

/** The gate of `GET /slow`: fresh deferreds after {@link SlowGate.reset}. */
export interface SlowGate {
  /** Resolved once a `GET /slow` is inside its handler. */
  readonly entered: Deferred;
  /** Resolving it lets the held `GET /slow` answer `{ done: true }`. */
  readonly release: Deferred;
  /** New, unresolved deferreds for the next test (release the current ones first). */
  reset(): void;
}

/** `Slow` (`GET /slow`, held by `gate`, answers `{ done: true }`) and `Fast` (`GET /fast`, answers `{ fast: true }`). */
export function slowAndFast(): { Slow: Constructor; Fast: Constructor; gate: SlowGate } {
  const gate = {
    entered: deferred(),
    release: deferred(),
    reset(): void {
      gate.entered = deferred();
      gate.release = deferred();
    },
  };

  @Path('/slow')
  class Slow {
    @GET() async get(): Promise<unknown> {
      gate.entered.resolve();
      await gate.release.promise;
      return { done: true };
    }
  }

  @Path('/fast')
  class Fast {
    @GET() get(): unknown {
      return { fast: true };
    }
  }

  return { Slow, Fast, gate };
}

/** The gate of `GET /hang`: a fresh deferred after {@link HangGate.reset}. */
export interface HangGate {
  /** Resolved once a `GET /hang` is inside its handler. */
  readonly entered: Deferred;
  /** A new, unresolved `entered` for the next request. */
  reset(): void;
}

/** `Hang` (`GET /hang`: its promise never settles) and its gate. */
export function hanging(): { Hang: Constructor; gate: HangGate } {
  const gate = {
    entered: deferred(),
    reset(): void {
      gate.entered = deferred();
    },
  };

  @Path('/hang')
  class Hang {
    @GET() get(): Promise<never> {
      gate.entered.resolve();
      return new Promise<never>(() => undefined);
    }
  }

  return { Hang, gate };
}
