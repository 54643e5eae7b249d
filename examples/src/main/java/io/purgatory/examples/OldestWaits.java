package io.purgatory.examples;

import io.purgatory.PendingOperation;
import io.purgatory.PendingOrder;
import io.purgatory.Purgatory;
import java.util.List;

/**
 * The oldest pending operations of each of the demo's purgatories, as JSON ({@code /api/pending},
 * the dashboard's table): per purgatory its name, its pending count and its oldest operations, each
 * with its kind, its keys ({@code toString()}, cut to 64 characters), its age, its time left (-1:
 * none), its position (or null) and whether a check tried it.
 */
final class OldestWaits {

    static final int DEFAULT_LIMIT = 10;
    static final int MAX_LIMIT = 100;

    private final List<Purgatory> purgatories;

    OldestWaits(List<? extends Purgatory> purgatories) {
        this.purgatories = List.copyOf(purgatories);
    }

    /** At most {@code limit} operations of each purgatory, oldest first. */
    String toJson(int limit) {
        Json json = new Json().beginObject().field("limit", limit).beginArray("purgatories");
        for (Purgatory purgatory : purgatories) {
            json.beginObject().field("name", purgatory.name()).field("pending", purgatory.stats().pending())
                    .beginArray("oldest");
            for (PendingOperation op : purgatory.listPending(limit, PendingOrder.OLDEST_FIRST)) {
                json.beginObject().field("kind", op.kind()).beginArray("keys");
                op.keys().forEach(json::value);
                json.endArray().field("ageMs", op.ageMs()).field("timeLeftMs", op.timeLeftMs())
                        .fieldOrNull("position", op.position()).field("tried", op.tried()).endObject();
            }
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }
}
