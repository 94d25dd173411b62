/** Local rate budgets against floods: token buckets per source and a log that cannot be flooded. */
package io.trunkgate.throttle;
