package io.trunkgate.sip;

import io.trunkgate.records.LiveCall;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The calls in progress as an operator sees them (GET /api/calls), and ending one (POST /api/calls/{id}/hangup):
 * an INVITE not yet answered is cancelled as its caller's CANCEL would (487 upstream, CANCEL to the carrier), an
 * answered one gets a BYE of the gateway's own to each end. Either way its leases are released and its record says
 * {@code hungUpBy} {@code operator}.
 */
public final class OperatorCalls {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final CallRegistry calls;
    private final DialogTable dialogs;
    private final InDialogForwarder inDialog;

    OperatorCalls(CallRegistry calls, DialogTable dialogs, InDialogForwarder inDialog) {
        this.calls = calls;
        this.dialogs = dialogs;
        this.inDialog = inDialog;
    }

    /** A call's id: its Call-ID and the caller's From tag, base64url (one path segment, the same in every phase). */
    static String id(CallIdentity identity) {
        return ENCODER.encodeToString((identity.callId() + '\n' + identity.fromTag()).getBytes(StandardCharsets.UTF_8));
    }

    /** The call an id names, or empty for one that is not an id. */
    private static Optional<CallIdentity> identity(String id) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(id), StandardCharsets.UTF_8);
            int split = text.indexOf('\n');
            return split < 0 ? Optional.empty()
                    : Optional.of(new CallIdentity(text.substring(0, split), text.substring(split + 1), 0));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The calls in progress here, oldest first: INVITEs not yet finally answered, then answered dialogs not ended. */
    public List<LiveCall> list() {
        Map<String, LiveCall> byId = new LinkedHashMap<>();
        for (InviteCall call : calls.inProgress()) {
            call.live().ifPresent(live -> byId.put(live.id(), live));
        }
        // read after the INVITEs: an INVITE answered meanwhile is listed once, as answered
        for (Dialog dialog : dialogs.unexpired()) {
            dialog.answeredCall().ifPresent(record -> byId.put(dialog.id(), new LiveCall(dialog.id(), record.peer(),
                    dialog.carrierId(), record.caller().fromUser(), record.caller().requestUser(), "answered",
                    record.invitedAt(), record.answeredAt())));
        }
        List<LiveCall> all = new ArrayList<>(byId.values());
        all.sort(Comparator.comparing(LiveCall::startedAt));
        return all;
    }

    /** Ends the call with this id (see the class comment); false when no call in progress has it. */
    public boolean hangUp(String id) {
        Optional<CallIdentity> identity = identity(id);
        if (identity.isEmpty()) {
            return false;
        }
        Optional<Dialog> answered = dialogs.find(identity.get().callId(), identity.get().fromTag())
                .filter(dialog -> dialog.answeredCall().isPresent());
        if (answered.isPresent()) {
            inDialog.hangUp(answered.get());
            return true;
        }
        return calls.inProgress(identity.get()).filter(InviteCall::hangUp).isPresent();
    }
}
