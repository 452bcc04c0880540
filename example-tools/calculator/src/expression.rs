//! A float-only arithmetic expression evaluator (recursive descent).
//!
//! Hand-written rather than a crate: the maintained evaluators (evalexpr) treat
//! `7/2` as integer division, which surprises a model, and the float-only ones
//! are unmaintained. The grammar is small:
//!
//! ```text
//! sum     = product (("+" | "-") product)*
//! product = power (("*" | "/" | "%") power)*
//! power   = unary ("^" power)?
//! unary   = "-" unary | atom
//! atom    = number | name | name "(" sum ")" | "(" sum ")"
//! ```

/// Evaluates `text`, or says what is wrong and where (1-based character position).
pub(crate) fn evaluate(text: &str) -> Result<f64, String> {
    evaluate_at(text, None)
}

/// Evaluates `text` with the name `x` standing for `x` (when given).
pub(crate) fn evaluate_at(text: &str, x: Option<f64>) -> Result<f64, String> {
    let mut parser = Parser { chars: text.chars().collect(), pos: 0, x };
    if parser.chars.iter().all(|c| c.is_whitespace()) {
        return Err("the expression is empty".into());
    }
    let value = parser.sum()?;
    parser.skip_space();
    if let Some(c) = parser.peek() {
        return Err(parser.error(&format!("unexpected '{c}'")));
    }
    if !value.is_finite() {
        return Err(format!("the result is not a finite number ({value})"));
    }
    Ok(value)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// What the name `x` stands for, if anything.
    x: Option<f64>,
}

impl Parser {
    fn error(&self, what: &str) -> String {
        format!("{what} at position {}", self.pos + 1)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// Skips spaces, then consumes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        let found = self.peek() == Some(c);
        if found {
            self.pos += 1;
        }
        found
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut value = self.product()?;
        loop {
            if self.eat('+') {
                value += self.product()?;
            } else if self.eat('-') {
                value -= self.product()?;
            } else {
                return Ok(value);
            }
        }
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut value = self.power()?;
        loop {
            if self.eat('*') {
                value *= self.power()?;
            } else if self.eat('/') {
                let divisor = self.power()?;
                if divisor == 0.0 {
                    return Err(self.error("division by zero"));
                }
                value /= divisor;
            } else if self.eat('%') {
                let divisor = self.power()?;
                if divisor == 0.0 {
                    return Err(self.error("remainder of division by zero"));
                }
                value %= divisor;
            } else {
                return Ok(value);
            }
        }
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.unary()?;
        if self.eat('^') {
            return Ok(base.powf(self.power()?));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.eat('-') {
            return Ok(-self.unary()?);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<f64, String> {
        self.skip_space();
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let value = self.sum()?;
                if !self.eat(')') {
                    return Err(self.error("missing ')'"));
                }
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() => self.name(),
            Some(c) => Err(self.error(&format!("unexpected '{c}'"))),
            None => Err(self.error("unexpected end of expression")),
        }
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let start = self.pos;
        while self.peek().is_some_and(&keep) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    fn number(&mut self) -> Result<f64, String> {
        let start = self.pos;
        let digits = self.take_while(|c| c.is_ascii_digit() || c == '.');
        digits.parse().map_err(|_| {
            self.pos = start;
            self.error(&format!("'{digits}' is not a number"))
        })
    }

    fn name(&mut self) -> Result<f64, String> {
        let start = self.pos;
        let name = self.take_while(|c| c.is_alphanumeric() || c == '_');
        match name.as_str() {
            "pi" => return Ok(std::f64::consts::PI),
            "e" => return Ok(std::f64::consts::E),
            "x" if self.x.is_some() => return Ok(self.x.unwrap_or_default()),
            _ => {}
        }
        let function: fn(f64) -> f64 = match name.as_str() {
            "sqrt" => f64::sqrt,
            "abs" => f64::abs,
            "ln" => f64::ln,
            "log10" => f64::log10,
            "exp" => f64::exp,
            "sin" => f64::sin,
            "cos" => f64::cos,
            "tan" => f64::tan,
            "floor" => f64::floor,
            "ceil" => f64::ceil,
            "round" => f64::round,
            _ => {
                self.pos = start;
                return Err(self.error(&format!("unknown name '{name}'")));
            }
        };
        if !self.eat('(') {
            return Err(self.error(&format!("'{name}' needs an argument in parentheses")));
        }
        let argument = self.sum()?;
        if !self.eat(')') {
            return Err(self.error("missing ')'"));
        }
        Ok(function(argument))
    }
}

#[cfg(test)]
mod tests {
    use super::evaluate;

    #[test]
    fn precedence_and_power_are_right_associative() {
        assert_eq!(evaluate("2 * (3 + 4) ^ 2"), Ok(98.0));
        assert_eq!(evaluate("2 ^ 3 ^ 2"), Ok(512.0));
        assert_eq!(evaluate("-2 ^ 2"), Ok(4.0));
        assert_eq!(evaluate("7 / 2"), Ok(3.5));
    }

    #[test]
    fn errors_name_the_position() {
        assert_eq!(evaluate("1 +"), Err("unexpected end of expression at position 4".into()));
        assert_eq!(evaluate("1 / 0"), Err("division by zero at position 6".into()));
        assert_eq!(evaluate("foo(1)"), Err("unknown name 'foo' at position 1".into()));
        assert_eq!(evaluate("  "), Err("the expression is empty".into()));
    }
}
