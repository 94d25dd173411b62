package io.trunkgate.admin;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * What the admin server answers: a status and either an object for {@link JsonReplyEncoder} to encode or
 * ready text with its content type.
 */
record Reply(HttpResponseStatus status, Object body, String contentType, Map<String, String> headers) {

    static final String JSON = "application/json; charset=utf-8";

    static Reply json(HttpResponseStatus status, Object body) {
        return new Reply(status, body, JSON, Map.of());
    }

    static Reply ok(Object body) {
        return json(HttpResponseStatus.OK, body);
    }

    static Reply text(String contentType, String text) {
        return new Reply(HttpResponseStatus.OK, text, contentType, Map.of());
    }

    static Reply error(HttpResponseStatus status, String message) {
        return json(status, Map.of("error", message));
    }

    Reply withHeader(String name, String value) {
        Map<String, String> all = new java.util.LinkedHashMap<>(headers);
        all.put(name, value);
        return new Reply(status, body, contentType, all);
    }

    boolean isJson() {
        return JSON.equals(contentType);
    }
}
