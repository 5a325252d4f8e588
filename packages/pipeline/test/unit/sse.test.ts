/**
 * Server-sent events in isolation: the event builder's checks, the wire format (WHATWG HTML
 * §9.2.6), the replay log and the shared heartbeat clock.
 */
import { describe, expect, it, vi } from 'vitest';
import { EventLog, OutboundSseEvent, Sse } from '../../src/index.js';
import { frameOf } from '../../src/features/sse/event.js';
import { joinHeartbeat } from '../../src/features/sse/heartbeat.js';

const sse = new Sse();

describe('OutboundSseEvent builder', () => {
  it('refuses ids and names that would break the line they go on', () => {
    expect(() => sse.newEventBuilder().id('a\nb')).toThrow(/id\(\): "a\\nb" contains a CR, LF or NUL/);
    expect(() => sse.newEventBuilder().id('a\rb')).toThrow(TypeError);
    expect(() => sse.newEventBuilder().id('a\0b')).toThrow(TypeError);
    expect(() => sse.newEventBuilder().name('x\r\ny')).toThrow(/name\(\)/);
    expect(() => sse.newEvent('bad\nname', 'data')).toThrow(TypeError);
  });

  it('refuses an empty event, a name without data, a bad retry or media type', () => {
    expect(() => sse.newEventBuilder().build()).toThrow(/the event is empty/);
    expect(() => sse.newEventBuilder().name('tick').build()).toThrow(/has a name but no data/);
    expect(() => sse.newEventBuilder().reconnectDelay(-1)).toThrow(/non-negative integer/);
    expect(() => sse.newEventBuilder().reconnectDelay(1.5)).toThrow(TypeError);
    expect(() => sse.newEventBuilder().data('x', 'text/*')).toThrow(/not a concrete media type/);
    expect(() => sse.newEventBuilder().data(undefined)).toThrow(/undefined/);
  });

  it('builds immutable events with the fields given', () => {
    const e = sse.newEventBuilder().id('7').name('n').data({ a: 1 }, 'application/json').comment('c').reconnectDelay(10).build();
    expect(e).toMatchObject({ id: '7', name: 'n', data: { a: 1 }, comment: 'c', reconnectDelay: 10 });
    expect(e.mediaType?.essence).toBe('application/json');
    expect(e.withId('8')).toMatchObject({ id: '8', name: 'n' });
    expect(sse.newEvent('tick', 1)).toMatchObject({ name: 'tick', data: 1 });
  });
});

describe('frameOf (the wire format)', () => {
  it('writes comments, event, id, retry and one data line per line of text, then a blank line', () => {
    const e = sse.newEventBuilder().comment('one\ntwo').name('n').id('1').reconnectDelay(5).data('a\r\nb\rc\n').build();
    expect(frameOf(e, 'a\r\nb\rc\n')).toBe(': one\n: two\nevent: n\nid: 1\nretry: 5\ndata: a\ndata: b\ndata: c\ndata: \n\n');
  });

  it('keeps leading spaces of data (the parser removes exactly one)', () => {
    expect(frameOf(sse.newEvent('  x'), '  x')).toBe('data:   x\n\n');
  });

  it('writes an empty id (it resets the client’s last event id) and an empty comment line', () => {
    expect(frameOf(sse.newEventBuilder().id('').build(), undefined)).toBe('id: \n\n');
    expect(frameOf(sse.newEventBuilder().comment('').build(), undefined)).toBe(':\n\n');
  });
});

describe('EventLog', () => {
  it('numbers events without an id and answers what came after an id', () => {
    const log = new EventLog({ capacity: 3 });
    const ids = ['a', 'b', 'c'].map((d) => log.append(sse.newEvent(d)).id);
    expect(ids).toEqual(['1', '2', '3']);
    expect(log.since('1')!.map((e) => e.data)).toEqual(['b', 'c']);
    expect(log.since('3')).toEqual([]);
    expect(log.since(undefined)).toEqual([]);
    expect(log.lastId).toBe('3');
  });

  it('forgets the oldest past its capacity: their ids need a resync', () => {
    const log = new EventLog({ capacity: 2 });
    for (const d of ['a', 'b', 'c']) log.append(sse.newEvent(d));
    expect(log.recent().map((e) => e.data)).toEqual(['b', 'c']);
    expect(log.since('1')).toBeUndefined();
    expect(log.since('2')!.map((e) => e.data)).toEqual(['c']);
    expect(log.since('unknown')).toBeUndefined();
  });

  it('keeps ids the events bring', () => {
    const log = new EventLog();
    log.append(sse.newEventBuilder().id('x-1').data(1).build());
    log.append(sse.newEventBuilder().id('x-2').data(2).build());
    expect(log.since('x-1')!.map((e) => e.id)).toEqual(['x-2']);
  });

  it('checks its options', () => {
    expect(() => new EventLog({ capacity: 0 })).toThrow(/capacity must be a positive integer/);
    expect(() => new EventLog({ resyncEventName: 'a\nb' })).toThrow(TypeError);
  });

  it('an event without an id is numbered (OutboundSseEvent.withId)', () => {
    const e = OutboundSseEvent.builder().data('x').build();
    expect(new EventLog().append(e)).not.toBe(e);
  });
});

describe('heartbeat clock', () => {
  it('shares one timer per interval, beats its members, and stops the timer with its last member', () => {
    vi.useFakeTimers();
    try {
      const beats: string[] = [];
      const stopA = joinHeartbeat(1000, { beat: () => beats.push('a') });
      const stopB = joinHeartbeat(1000, { beat: () => beats.push('b') });
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(1000);
      expect(beats).toEqual(['a', 'b']);
      stopA();
      expect(vi.getTimerCount()).toBe(1);
      stopB();
      stopB();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
