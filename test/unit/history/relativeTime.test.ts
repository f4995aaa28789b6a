import * as assert from 'node:assert/strict';
import { relativeTime } from '../../../src/webview/relativeTime';

describe('relativeTime (History list dates)', () => {
  // Local times, so calendar days do not depend on the machine's time zone.
  const now = new Date(2025, 4, 15, 14, 30).getTime();
  const at = (...parts: [number, number, number, number?, number?, number?]): string => new Date(...parts).toISOString();

  it('says "just now" for the last minute and a clock slightly ahead', () => {
    assert.equal(relativeTime(at(2025, 4, 15, 14, 29, 40), now), 'just now');
    assert.equal(relativeTime(at(2025, 4, 15, 14, 32), now), 'just now');
  });

  it('counts minutes, then hours within the same day', () => {
    assert.equal(relativeTime(at(2025, 4, 15, 14, 25), now), '5 min ago');
    assert.equal(relativeTime(at(2025, 4, 15, 11, 30), now), '3 h ago');
    assert.equal(relativeTime(at(2025, 4, 15, 0, 5), now), '14 h ago');
  });

  it('uses calendar days: late yesterday is "yesterday", not hours ago', () => {
    assert.equal(relativeTime(at(2025, 4, 14, 23, 50), now), 'yesterday');
    assert.equal(relativeTime(at(2025, 4, 11, 9, 0), now), '4 days ago');
  });

  it('counts weeks, then shows the date, with the year only when it differs', () => {
    assert.equal(relativeTime(at(2025, 4, 8, 9, 0), now), '1 week ago');
    assert.equal(relativeTime(at(2025, 3, 25, 9, 0), now), '2 weeks ago');
    assert.equal(relativeTime(at(2025, 2, 12, 9, 0), now), '12 Mar');
    assert.equal(relativeTime(at(2024, 11, 31, 9, 0), now), '31 Dec 2024');
  });

  it('shows the date for times far in the future and says so for unreadable ones', () => {
    assert.equal(relativeTime(at(2025, 5, 1, 9, 0), now), '1 Jun');
    assert.equal(relativeTime('not a date', now), 'unknown date');
    assert.equal(relativeTime('', now), 'unknown date');
  });
});
