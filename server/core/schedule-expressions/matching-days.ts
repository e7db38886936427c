import type { DayRule } from './schedule.js';

/** Days in a month (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** EventBridge's day of the week of a date: 1 = Sunday ... 7 = Saturday. */
export function weekdayOf(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1;
}

const saturday = 7;
const sunday = 1;

/** The sorted days of the given month that a cron day rule matches. */
export function matchingDays(rule: DayRule, year: number, month: number): number[] {
  const lastDay = daysInMonth(year, month);
  switch (rule.kind) {
    case 'days-of-month':
      return rule.days.filter((day) => day <= lastDay);
    case 'last-day-of-month':
      return [lastDay];
    case 'last-weekday-of-month': {
      const weekday = weekdayOf(year, month, lastDay);
      return [weekday === saturday ? lastDay - 1 : weekday === sunday ? lastDay - 2 : lastDay];
    }
    case 'nearest-weekday':
      return rule.day > lastDay ? [] : [nearestWeekday(year, month, rule.day, lastDay)];
    case 'days-of-week': {
      const days: number[] = [];
      const firstWeekday = weekdayOf(year, month, 1);
      for (let day = 1; day <= lastDay; day++) {
        if (rule.weekdays.includes(((firstWeekday - 1 + day - 1) % 7) + 1)) days.push(day);
      }
      return days;
    }
    case 'last-weekday-n-of-month':
      return [lastDay - ((weekdayOf(year, month, lastDay) - rule.weekday + 7) % 7)];
    case 'nth-weekday-of-month': {
      const first = 1 + ((rule.weekday - weekdayOf(year, month, 1) + 7) % 7);
      const day = first + 7 * (rule.nth - 1);
      return day <= lastDay ? [day] : [];
    }
  }
}

/**
 * `nW`: the Monday-Friday nearest day n without leaving the month, so 1W on a Saturday is
 * Monday the 3rd and the last day on a Sunday moves back to Friday.
 */
function nearestWeekday(year: number, month: number, day: number, lastDay: number): number {
  const weekday = weekdayOf(year, month, day);
  if (weekday === saturday) return day === 1 ? 3 : day - 1;
  if (weekday === sunday) return day === lastDay ? day - 2 : day + 1;
  return day;
}
