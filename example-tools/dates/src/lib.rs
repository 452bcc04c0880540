//! The `dates` example tool: calendar dates parsed, written and added to, with chrono.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]
// The canonical ABI passes a `date-time` record as its fields, one core argument each,
// so the export shims wit-bindgen generates for two tools take more than seven.
#![allow(clippy::too_many_arguments)]

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike};

toolhost_guest::generate!({ world: "dates" });

struct Dates;

impl Guest for Dates {
    fn parse_date(text: String) -> Result<Date, String> {
        const FORMATS: [&str; 5] = ["%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%d.%m.%Y", "%d %b %Y"];
        let text = text.trim();
        FORMATS.iter().find_map(|format| NaiveDate::parse_from_str(text, format).ok()).map(from_naive_date).ok_or_else(
            || {
                format!(
                    "'{text}' is not a date in a known form; write it as 2024-03-15, \
                     15 March 2024, March 15, 2024 or 15.03.2024"
                )
            },
        )
    }

    fn format_date(date: Date, style: DateStyle) -> Result<String, String> {
        let date = to_naive_date(&date)?;
        let format = match style {
            DateStyle::Iso => "%Y-%m-%d",
            DateStyle::Us => "%m/%d/%Y",
            DateStyle::European => "%d.%m.%Y",
            DateStyle::Long => "%A, %-d %B %Y",
        };
        Ok(date.format(format).to_string())
    }

    fn format_date_time(moment: DateTime, utc_offset_hours: Option<i8>) -> Result<String, String> {
        let moment = to_naive_date_time(&moment)?;
        let offset = match utc_offset_hours {
            None => "Z".to_string(),
            Some(hours @ -12..=14) => format!("{}{:02}:00", if hours < 0 { '-' } else { '+' }, hours.abs()),
            Some(hours) => return Err(format!("utc-offset-hours must be between -12 and 14, got {hours}")),
        };
        Ok(format!("{}{offset}", moment.format("%Y-%m-%dT%H:%M:%S")))
    }

    fn add_duration(start: DateTime, duration: Duration) -> Result<DateTime, String> {
        let start = to_naive_date_time(&start)?;
        let seconds =
            i64::from(duration.days) * 86_400 + i64::from(duration.hours) * 3_600 + i64::from(duration.minutes) * 60;
        let delta = seconds
            .checked_add(duration.seconds)
            .and_then(TimeDelta::try_seconds)
            .ok_or("the duration is too long to add")?;
        let end = start.checked_add_signed(delta).ok_or("the result is outside the supported calendar range")?;
        Ok(from_naive_date_time(end))
    }

    fn days_between(from: Date, to: Date) -> Result<i64, String> {
        Ok((to_naive_date(&to)? - to_naive_date(&from)?).num_days())
    }

    fn weekday(date: Date) -> Result<Weekday, String> {
        Ok(match to_naive_date(&date)?.weekday() {
            chrono::Weekday::Mon => Weekday::Monday,
            chrono::Weekday::Tue => Weekday::Tuesday,
            chrono::Weekday::Wed => Weekday::Wednesday,
            chrono::Weekday::Thu => Weekday::Thursday,
            chrono::Weekday::Fri => Weekday::Friday,
            chrono::Weekday::Sat => Weekday::Saturday,
            chrono::Weekday::Sun => Weekday::Sunday,
        })
    }
}

fn to_naive_date(date: &Date) -> Result<NaiveDate, String> {
    NaiveDate::from_ymd_opt(date.year, date.month.into(), date.day.into())
        .ok_or_else(|| format!("{:04}-{:02}-{:02} is not a date that exists", date.year, date.month, date.day))
}

fn to_naive_date_time(moment: &DateTime) -> Result<NaiveDateTime, String> {
    let time = NaiveTime::from_hms_opt(moment.hour.into(), moment.minute.into(), moment.second.into())
        .ok_or_else(|| format!("{:02}:{:02}:{:02} is not a time of day", moment.hour, moment.minute, moment.second))?;
    Ok(to_naive_date(&moment.date)?.and_time(time))
}

fn from_naive_date(date: NaiveDate) -> Date {
    Date { year: date.year(), month: date.month() as u8, day: date.day() as u8 }
}

fn from_naive_date_time(moment: NaiveDateTime) -> DateTime {
    DateTime {
        date: from_naive_date(moment.date()),
        hour: moment.hour() as u8,
        minute: moment.minute() as u8,
        second: moment.second() as u8,
    }
}

export!(Dates);
