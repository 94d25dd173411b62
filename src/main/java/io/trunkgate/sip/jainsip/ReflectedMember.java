package io.trunkgate.sip.jainsip;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A member of a JAIN-SIP class that this package reaches past the {@code javax.sip} API: a field of a given type,
 * or a method with a given signature (read reflectively, or overridden by a subclass here, which a JAIN-SIP that
 * changed it would no longer call). Naming one does not touch the class's members; resolving it does.
 */
record ReflectedMember(Class<?> owner, String name, Class<?> type, List<Class<?>> parameters, boolean method) {

    static ReflectedMember field(Class<?> owner, String name, Class<?> type) {
        return new ReflectedMember(owner, name, type, List.of(), false);
    }

    static ReflectedMember method(Class<?> owner, String name, Class<?> returns, Class<?>... parameters) {
        return new ReflectedMember(owner, name, returns, List.of(parameters), true);
    }

    VarHandle varHandle() throws ReflectiveOperationException {
        return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).findVarHandle(owner, name, type);
    }

    MethodHandle methodHandle() throws ReflectiveOperationException {
        return MethodHandles.privateLookupIn(owner, MethodHandles.lookup())
                .findVirtual(owner, name, MethodType.methodType(type, parameters));
    }

    /** Whether the class on the class path has this member, of this type or signature. */
    boolean present() {
        try {
            if (method) {
                methodHandle();
            } else {
                varHandle();
            }
            return true;
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return method
                ? "method " + owner.getName() + "." + name + "(" + parameters.stream().map(Class::getName)
                        .collect(Collectors.joining(", ")) + ") returning " + type.getName()
                : "field " + owner.getName() + "." + name + " of type " + type.getName();
    }
}
