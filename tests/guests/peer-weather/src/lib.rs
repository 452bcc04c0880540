//! Test-only guest with the tools the reference measurements' second run added.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "peer-weather" });

struct Peer;

impl Guest for Peer {
    fn websearch(q: String) -> String {
        format!("websearch results for {q}")
    }

    fn get_weather(city: String, unit: Option<TemperatureUnit>) -> String {
        // A repeatable temperature from the city's name: this is a test guest.
        let celsius = (city.bytes().map(u32::from).sum::<u32>() % 30) as i32 - 5;
        match unit.unwrap_or(TemperatureUnit::Celsius) {
            TemperatureUnit::Celsius => format!("{city}: {celsius} °C"),
            TemperatureUnit::Fahrenheit => format!("{city}: {} °F", celsius * 9 / 5 + 32),
        }
    }
}

export!(Peer);
