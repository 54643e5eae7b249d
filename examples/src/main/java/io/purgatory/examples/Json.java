package io.purgatory.examples;

/** A minimal JSON writer for the demo's responses (no dependency for five small documents). */
final class Json {

    private final StringBuilder out = new StringBuilder(256);
    private boolean needComma;

    Json beginObject() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    Json endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    Json beginArray(String name) {
        key(name);
        out.append('[');
        needComma = false;
        return this;
    }

    Json endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    Json field(String name, String value) {
        key(name);
        string(value);
        needComma = true;
        return this;
    }

    Json field(String name, boolean value) {
        key(name);
        out.append(value);
        needComma = true;
        return this;
    }

    /** {@code value}, or null. */
    Json fieldOrNull(String name, Long value) {
        key(name);
        out.append(value == null ? "null" : value.toString());
        needComma = true;
        return this;
    }

    Json field(String name, long value) {
        key(name);
        out.append(value);
        needComma = true;
        return this;
    }

    Json field(String name, double value) {
        key(name);
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        needComma = true;
        return this;
    }

    Json value(long value) {
        comma();
        out.append(value);
        needComma = true;
        return this;
    }

    Json value(String value) {
        comma();
        string(value);
        needComma = true;
        return this;
    }

    private void key(String name) {
        comma();
        string(name);
        out.append(':');
        needComma = false;
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
