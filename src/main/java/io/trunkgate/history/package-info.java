/** The last ten minutes of traffic at one-second resolution, sampled for /api/history and the status page. */
package io.trunkgate.history;
