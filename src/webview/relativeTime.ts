const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Midnight (local time) of the day holding `time`. */
function dayStart(time: number): number {
  const date = new Date(time);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/**
 * How long ago an ISO time was, the way a list shows it: "just now", "5 min ago", "3 h ago",
 * "yesterday", "4 days ago", "2 weeks ago", then the date ("12 Mar", with the year when it is not
 * this year). Calendar days are local. An unreadable time gives "unknown date".
 */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return 'unknown date';
  const ago = now - time;
  // A clock a little ahead (another machine) still reads as now; far in the future shows the date.
  if (ago < 45_000 && ago > -5 * MINUTE) return 'just now';
  if (ago >= 0 && ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))} min ago`;
  const days = Math.round((dayStart(now) - dayStart(time)) / DAY);
  if (ago >= 0 && days === 0) return `${Math.round(ago / HOUR)} h ago`;
  if (days === 1) return 'yesterday';
  if (days > 1 && days < 7) return `${days} days ago`;
  if (days >= 7 && days < 28) {
    const weeks = Math.floor(days / 7);
    return `${weeks} week${weeks === 1 ? '' : 's'} ago`;
  }
  const date = new Date(time);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return `${date.getDate()} ${MONTHS[date.getMonth()] ?? ''}${sameYear ? '' : ` ${date.getFullYear()}`}`;
}
