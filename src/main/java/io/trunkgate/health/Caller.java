package io.trunkgate.health;

/**
 * Who placed a call a carrier answered, as carrier health weighs the answer: the peer and the number it dialled.
 * One peer, or one number, refused by a carrier says nothing of the carrier's health.
 */
public record Caller(String peer, String number) {
}
