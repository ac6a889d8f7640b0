package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.RecordHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A validated {@code @GroupKeeperListener} method and the handler that calls it. Supported: one parameter, a
 * {@code ConsumerRecord<K, V>}, the value, {@code List<ConsumerRecord<K, V>>} or {@code List<V>}. Exceptions thrown by
 * the method reach the error policy unwrapped, so rules match the method's own exception classes.
 */
public final class ListenerMethod {

    enum Kind { RECORD, VALUE, RECORD_LIST, VALUE_LIST }

    private final Object bean;
    private final Method method;
    private final Kind kind;
    private final Class<?> valueType;

    private ListenerMethod(Object bean, Method method, Kind kind, Class<?> valueType) {
        this.bean = bean;
        this.method = method;
        this.kind = kind;
        this.valueType = valueType;
        ReflectionUtils.makeAccessible(method);
    }

    /** Validates the signature; fails naming the method. */
    public static ListenerMethod of(Object bean, Method method) {
        String name = describe(method);
        if (method.getParameterCount() != 1) {
            throw unsupported(name, "it has " + method.getParameterCount() + " parameters");
        }
        Class<?> type = method.getParameterTypes()[0];
        Type generic = method.getGenericParameterTypes()[0];
        if (type == ConsumerRecords.class) {
            throw unsupported(name, "ConsumerRecords is not supported; take a List");
        }
        if (type == ConsumerRecord.class) {
            return new ListenerMethod(bean, method, Kind.RECORD, Object.class);
        }
        if (type == List.class) {
            if (!(generic instanceof ParameterizedType p)) {
                throw unsupported(name, "a raw List; declare List<ConsumerRecord<K, V>> or List<V>");
            }
            Type element = p.getActualTypeArguments()[0];
            Class<?> raw = rawClass(element);
            if (raw == ConsumerRecord.class) {
                return new ListenerMethod(bean, method, Kind.RECORD_LIST, Object.class);
            }
            if (raw == null) {
                throw unsupported(name, "its list element type " + element.getTypeName() + " is not a class");
            }
            return new ListenerMethod(bean, method, Kind.VALUE_LIST, raw);
        }
        return new ListenerMethod(bean, method, Kind.VALUE, ClassUtils.resolvePrimitiveIfNecessary(type));
    }

    private static Class<?> rawClass(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
            return c;
        }
        return null;
    }

    private static IllegalStateException unsupported(String method, String why) {
        return new IllegalStateException("@GroupKeeperListener method " + method + " has an unsupported signature ("
                + why + "): it must take exactly one parameter: ConsumerRecord<K, V>, the value V, "
                + "List<ConsumerRecord<K, V>> or List<V>");
    }

    static String describe(Method m) {
        List<String> params = new ArrayList<>();
        for (Type t : m.getGenericParameterTypes()) {
            params.add(t.getTypeName());
        }
        return m.getDeclaringClass().getName() + "." + m.getName() + "(" + String.join(", ", params) + ")";
    }

    boolean batch() {
        return kind == Kind.RECORD_LIST || kind == Kind.VALUE_LIST;
    }

    RecordHandler<Object, Object> recordHandler() {
        return kind == Kind.RECORD ? this::invoke : r -> invoke(value(r));
    }

    BatchHandler<Object, Object> batchHandler() {
        if (kind == Kind.RECORD_LIST) {
            return this::invoke;
        }
        return records -> {
            List<Object> values = new ArrayList<>(records.size());
            for (ConsumerRecord<Object, Object> r : records) {
                values.add(value(r));
            }
            invoke(values);
        };
    }

    private Object value(ConsumerRecord<Object, Object> r) {
        Object v = r.value();
        if (v != null && !valueType.isInstance(v)) {
            throw new IllegalArgumentException("@GroupKeeperListener method " + describe(method) + " takes "
                    + valueType.getName() + " but the value deserializer produced " + v.getClass().getName()
                    + " (set spring.kafka.consumer.value-deserializer)");
        }
        return v;
    }

    private void invoke(Object argument) throws Exception {
        try {
            method.invoke(bean, argument);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return describe(method);
    }
}
