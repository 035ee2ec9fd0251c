//! A small JSON reader for the library's discovery texts, so that they come typed without a crate
//! from a registry. It reads any valid JSON; numbers become f64.
use std::iter::Peekable;
use std::str::Chars;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object; `Null` when absent or not an object, so lookups chain.
    pub(crate) fn get(&self, key: &str) -> &Value {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map_or(&Value::Null, |(_, v)| v),
            _ => &Value::Null,
        }
    }

    pub(crate) fn text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            _ => String::new(),
        }
    }

    pub(crate) fn flag(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    pub(crate) fn items(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            _ => &[],
        }
    }

    pub(crate) fn number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }
}

/// The value `text` holds, or what is wrong with it and where.
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let mut reader = Reader { chars: text.chars().peekable(), offset: 0 };
    let value = reader.value()?;
    reader.skip_space();
    match reader.chars.peek().copied() {
        None => Ok(value),
        Some(c) => Err(reader.error(&format!("{:?} after the value", c))),
    }
}

struct Reader<'a> {
    chars: Peekable<Chars<'a>>,
    offset: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> String {
        format!("JSON: {} at character {}", what, self.offset)
    }

    fn next(&mut self) -> Option<char> {
        self.offset += 1;
        self.chars.next()
    }

    fn skip_space(&mut self) {
        while matches!(self.chars.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.next();
        }
    }

    fn expect(&mut self, word: &str) -> Result<(), String> {
        for wanted in word.chars() {
            if self.next() != Some(wanted) {
                return Err(self.error(&format!("expected {:?}", word)));
            }
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_space();
        match self.chars.peek().copied() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('"') => Ok(Value::Text(self.string()?)),
            Some('t') => self.expect("true").map(|_| Value::Bool(true)),
            Some('f') => self.expect("false").map(|_| Value::Bool(false)),
            Some('n') => self.expect("null").map(|_| Value::Null),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(c) => Err(self.error(&format!("unexpected {:?}", c))),
            None => Err(self.error("unexpected end")),
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        self.next(); // '{'
        let mut members = Vec::new();
        self.skip_space();
        if self.chars.peek() == Some(&'}') {
            self.next();
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_space();
            if self.chars.peek() != Some(&'"') {
                return Err(self.error("expected a member name"));
            }
            let key = self.string()?;
            self.skip_space();
            self.expect(":")?;
            members.push((key, self.value()?));
            self.skip_space();
            match self.next() {
                Some(',') => continue,
                Some('}') => return Ok(Value::Object(members)),
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        self.next(); // '['
        let mut items = Vec::new();
        self.skip_space();
        if self.chars.peek() == Some(&']') {
            self.next();
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.next() {
                Some(',') => continue,
                Some(']') => return Ok(Value::Array(items)),
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self.next().and_then(|c| c.to_digit(16)).ok_or_else(|| self.error("bad \\u escape"))?;
            code = code * 16 + digit;
        }
        Ok(code)
    }

    fn string(&mut self) -> Result<String, String> {
        self.next(); // '"'
        let mut out = String::new();
        loop {
            match self.next() {
                None => return Err(self.error("unterminated string")),
                Some('"') => return Ok(out),
                Some('\\') => match self.next() {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('/') => out.push('/'),
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some('t') => out.push('\t'),
                    Some('u') => {
                        let mut code = self.hex4()?;
                        if (0xd800..0xdc00).contains(&code) {
                            self.expect("\\u")?; // a surrogate pair
                            let low = self.hex4()?;
                            if !(0xdc00..0xe000).contains(&low) {
                                return Err(self.error("unpaired surrogate"));
                            }
                            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                        }
                        out.push(char::from_u32(code).ok_or_else(|| self.error("bad \\u escape"))?);
                    }
                    _ => return Err(self.error("bad escape")),
                },
                Some(c) => out.push(c),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let mut digits = String::new();
        while let Some(&c) = self.chars.peek() {
            if !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')) {
                break;
            }
            digits.push(c);
            self.next();
        }
        digits.parse().map(Value::Number).map_err(|_| self.error(&format!("bad number {:?}", digits)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_value() {
        let value = parse(r#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\"\\\/\n\u00e9\ud83d\ude00"}, "d": {}, "e": []} "#).unwrap();
        let a = value.get("a").items();
        assert_eq!(a.iter().map(Value::number).collect::<Vec<_>>(), [Some(1.0), Some(-2500.0), None, None, None]);
        assert!(a[2].flag() && !a[3].flag() && a[4] == Value::Null);
        assert_eq!(value.get("b").get("c").text(), "x\"\\/\n\u{e9}\u{1f600}");
        assert_eq!(value.get("d"), &Value::Object(vec![]));
        assert_eq!(value.get("missing").get("deeper"), &Value::Null);
    }

    #[test]
    fn says_what_is_wrong_and_where() {
        for (text, what) in [("{\"a\" 1}", "expected \":\""), ("[1, 2", "expected ',' or ']'"), ("\"open", "unterminated"),
                             ("{} x", "after the value"), ("-", "bad number"), ("nul", "expected \"null\""),
                             ("\"\\ud83d\\u0041\"", "unpaired surrogate")] {
            let error = parse(text).unwrap_err();
            assert!(error.contains(what) && error.contains("at character"), "{}: {}", text, error);
        }
    }
}
