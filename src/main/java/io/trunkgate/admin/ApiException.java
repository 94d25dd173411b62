package io.trunkgate.admin;

import io.netty.handler.codec.http.HttpResponseStatus;

/** A request the admin API refuses, with the status and the message for the client (400, 404, ...). */
final class ApiException extends RuntimeException {

    private final HttpResponseStatus status;

    ApiException(HttpResponseStatus status, String message) {
        super(message);
        this.status = status;
    }

    HttpResponseStatus status() {
        return status;
    }
}
