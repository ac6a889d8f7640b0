package io.groupkeeper.spring.internal;

import com.fasterxml.jackson.databind.JavaType;
import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.RecordHandler;
import io.groupkeeper.kafka.container.TransactionalSender;
import io.groupkeeper.spring.FencingToken;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.adapter.ConsumerRecordMetadata;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.KafkaNull;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.handler.annotation.ValueConstants;
import org.springframework.messaging.handler.annotation.support.MethodArgumentNotValidException;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.SmartValidator;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.ValidationAnnotationUtils;

/**
 * A validated {@code @GroupKeeperListener} method and the handler that calls it, with its parameters resolved as Spring
 * for Apache Kafka resolves a {@code @KafkaListener}'s, so a migrated method keeps its signature:
 * <ul>
 *   <li>exactly one data parameter: {@code ConsumerRecord<K, V>}, the payload (unannotated or {@code @Payload}: any
 *   type — {@code String}, {@code byte[]}, a Jackson-mapped class or record — converted by {@link PayloadDeserializer}),
 *   Spring Messaging's {@code Message<T>}, or for a batch listener a {@code List} of records or payloads (the records
 *   of one partition from one fetch);</li>
 *   <li>any number of {@code @Header(name)} parameters: Spring Kafka's {@code KafkaHeaders} names
 *   ({@code kafka_receivedTopic}, {@code kafka_receivedPartitionId}, {@code kafka_offset},
 *   {@code kafka_receivedMessageKey}, {@code kafka_receivedTimestamp}, {@code kafka_timestampType},
 *   {@code kafka_groupId}) or a record header by name, converted to the parameter's type; in a batch listener a
 *   {@code List} header parameter has one value per record;</li>
 *   <li>{@code @Headers Map<String, Object>} or {@code MessageHeaders}: all of them;</li>
 *   <li>{@code ConsumerRecordMetadata}: the record's topic, partition, offset and timestamp;</li>
 *   <li>{@code @FencingToken long} (or {@code OptionalLong}): the partition's fencing token;</li>
 *   <li>Spring Kafka's {@code Acknowledgment} (record listeners; {@code ContainerFactory} refuses it without a manual
 *   ack mode): the container's manual acknowledgements.</li>
 * </ul>
 * Anything else (Spring Kafka's {@code Consumer}, {@code ConsumerRecords}, two data
 * parameters) fails the context start naming the method and the parameter. Exceptions thrown by the method reach the
 * error policy unwrapped, so rules match the method's own exception classes.
 *
 * <p>About 640 lines: one method's whole contract with Spring's resolution rules — each parameter kind validated
 * at start (every refused form named there) and the same kinds resolved per record or batch at call time; the two
 * halves read the same kinds, and keeping them in one class keeps them in step.
 */
public final class ListenerMethod {

    private final Object bean;
    private final Method method;
    private final boolean batch;
    private final JavaType payload;
    private final List<ListenerArgument> arguments;

    /** For a class-level listener: its {@code @KafkaHandler} methods and the default one (or null); else null. */
    private final List<ListenerMethod> handlers;

    private final ListenerMethod defaultHandler;

    private ListenerMethod(
            Object bean, Method method, boolean batch, JavaType payload, List<ListenerArgument> arguments) {
        this(bean, method, batch, payload, arguments, null, null);
    }

    private ListenerMethod(
            Object bean,
            Method method,
            boolean batch,
            JavaType payload,
            List<ListenerArgument> arguments,
            List<ListenerMethod> handlers,
            ListenerMethod defaultHandler) {
        this.handlers = handlers;
        this.defaultHandler = defaultHandler;
        this.bean = bean;
        this.method = method;
        this.batch = batch;
        this.payload = payload;
        this.arguments = arguments;
        ReflectionUtils.makeAccessible(method);
    }

    /** Validates the signature; fails naming the method and the parameter. */
    public static ListenerMethod of(Object bean, Method method, String group) {
        String name = describe(method);
        Parameter[] parameters = method.getParameters();
        Data data = null;
        String dataParameter = null;
        for (int i = 0; i < parameters.length; i++) { // first the data parameter: it decides record or batch
            Parameter p = parameters[i];
            if (p.isAnnotationPresent(Header.class)
                    || p.isAnnotationPresent(Headers.class)
                    || p.isAnnotationPresent(FencingToken.class)
                    || p.getType() == TransactionalSender.class
                    || p.getType() == MessageHeaders.class
                    || p.getType() == ConsumerRecordMetadata.class
                    || p.getType() == Acknowledgment.class) {
                continue;
            }
            Data d = data(p, name, where(p, i)); // first: an unsupported type is named as such
            if (dataParameter != null) {
                throw unsupported(
                        name,
                        where(p, i),
                        "a second data parameter after " + dataParameter + " (annotate headers with @Header)");
            }
            dataParameter = where(p, i);
            data = d;
        }
        if (data == null) {
            throw unsupported(
                    name,
                    "its parameters",
                    "no data parameter: take the record, the payload, a Message or " + "a List of records or payloads");
        }
        List<ListenerArgument> arguments = new ArrayList<>();
        Validated validated = null;
        for (int i = 0; i < parameters.length; i++) {
            Parameter p = parameters[i];
            Header header = p.getAnnotation(Header.class);
            if (header != null) {
                arguments.add(
                        header(header, p, new MethodParameter(method, i), data.batch, group, name + " " + where(p, i)));
            } else if (p.isAnnotationPresent(FencingToken.class)) {
                if (p.getType() != long.class && p.getType() != Long.class && p.getType() != OptionalLong.class) {
                    throw unsupported(name, where(p, i), "@FencingToken takes a long or an OptionalLong");
                }
                arguments.add(new ListenerArgument.Token(p.getType() == OptionalLong.class, name + " " + where(p, i)));
            } else if (p.getType() == TransactionalSender.class) {
                arguments.add(new ListenerArgument.Sender());
            } else if (p.getType() == MessageHeaders.class) { // with or without @Headers, as Spring resolves it
                arguments.add(new ListenerArgument.SpringHeaders(group));
            } else if (p.getType() == Acknowledgment.class) {
                if (data.batch) {
                    throw unsupported(
                            name,
                            where(p, i),
                            "Acknowledgment is supported on record listeners only (a "
                                    + "batch listener's acknowledgements are not): take one record, or drop the parameter");
                }
                arguments.add(new ListenerArgument.Ack()); // needs ack-mode MANUAL(_IMMEDIATE): ContainerFactory
            } else if (p.getType() == ConsumerRecordMetadata.class) {
                if (data.batch) {
                    throw unsupported(
                            name,
                            where(p, i),
                            "ConsumerRecordMetadata is for record listeners; a batch "
                                    + "listener takes List<ConsumerRecord<K, V>>");
                }
                arguments.add(new ListenerArgument.Metadata());
            } else if (p.isAnnotationPresent(Headers.class)) {
                if (!p.getType().isAssignableFrom(LinkedHashMap.class)) {
                    throw unsupported(name, where(p, i), "@Headers takes a Map<String, Object> or MessageHeaders");
                }
                arguments.add(new ListenerArgument.AllHeaders(group));
            } else {
                arguments.add(data.argument(group));
                Object[] hints = validationHints(p);
                if (hints != null) {
                    if (data.batch || data.records || data.message) {
                        throw unsupported(
                                name,
                                where(p, i),
                                "@Valid / @Validated is supported on a record listener's "
                                        + "payload parameter (as Spring Kafka validates the payload)");
                    }
                    validated = new Validated(i, hints, new MethodParameter(method, i));
                }
            }
        }
        for (int i = 0; i < parameters.length; i++) { // @Valid elsewhere than on the payload
            if (validationHints(parameters[i]) != null && (validated == null || validated.index() != i)) {
                throw unsupported(
                        name,
                        where(parameters[i], i),
                        "@Valid / @Validated is supported on the payload " + "parameter only");
            }
        }
        ListenerMethod m = new ListenerMethod(bean, method, data.batch, data.payload, List.copyOf(arguments));
        m.validated = validated;
        return m;
    }

    /**
     * A class-level listener: each record goes to the {@code @KafkaHandler} method whose payload parameter type takes
     * the value as the configured value deserializer produced it, else to the default one ({@code isDefault = true}),
     * as Spring Kafka's {@code DelegatingInvocableHandler} routes; a value no method takes fails with Spring's
     * {@code KafkaException("No method found for <class>")}, handled by the error policy. {@code methods} are
     * invocable on {@code bean}; {@code defaultMethod} is one of them or null.
     */
    static ListenerMethod handlers(
            Object bean, Class<?> beanClass, List<Method> methods, Method defaultMethod, String group) {
        return handlers(bean, beanClass, methods, defaultMethod, group, UnaryOperator.identity());
    }

    /**
     * The same, with {@code @SendTo} on a {@code @KafkaHandler} method honoured as Spring Kafka's
     * {@code DelegatingInvocableHandler} honours it: that method's result is sent to its topic ({@code resolve}d as
     * placeholders and SpEL; none: the record's {@code kafka_replyTopic}), as a record listener's ({@link SendToReplies}).
     */
    static ListenerMethod handlers(
            Object bean,
            Class<?> beanClass,
            List<Method> methods,
            Method defaultMethod,
            String group,
            UnaryOperator<String> resolve) {
        List<ListenerMethod> handlers = new ArrayList<>();
        ListenerMethod defaultHandler = null;
        for (Method m : methods) {
            ListenerMethod h = of(bean, m, group);
            if (h.batch
                    || h.payload.getRawClass() == ConsumerRecord.class
                    || h.arguments.stream().anyMatch(a -> a instanceof ListenerArgument.Records)) {
                throw new IllegalStateException("@GroupKeeperListener class " + beanClass.getName() + ": @KafkaHandler "
                        + "method " + describe(m) + " must take a payload or a Message<T> (records are routed by "
                        + "payload type); a batch or a ConsumerRecord needs a @GroupKeeperListener method");
            }
            SendTo sendTo =
                    org.springframework.core.annotation.AnnotatedElementUtils.findMergedAnnotation(m, SendTo.class);
            if (sendTo != null) { // Spring takes the first value; none: the record's kafka_replyTopic header
                h.sendTo(sendTo.value().length == 0 ? "" : resolve.apply(sendTo.value()[0]));
            }
            handlers.add(h);
            if (m.equals(defaultMethod)) {
                defaultHandler = h;
            }
        }
        if (handlers.isEmpty()) {
            throw new IllegalStateException("@GroupKeeperListener class " + beanClass.getName() + " has no "
                    + "@KafkaHandler method: annotate the methods that take the records @KafkaHandler (one "
                    + "isDefault = true for what no other takes), or put @GroupKeeperListener on a method");
        }
        return new ListenerMethod(
                bean,
                methods.get(0),
                false,
                PayloadDeserializer.JSON.constructType(Object.class),
                List.of(),
                List.copyOf(handlers),
                defaultHandler);
    }

    /** Spring's {@code findHandlerForPayload}: the one matching method, a match beside the default wins over it. */
    private ListenerMethod handlerFor(Object value) {
        Class<?> type = value == null ? KafkaNull.class : value.getClass();
        ListenerMethod result = null;
        for (ListenerMethod h : handlers) {
            if (ClassUtils.resolvePrimitiveIfNecessary(h.payload.getRawClass()).isAssignableFrom(type)) {
                if (result != null && result != defaultHandler) {
                    if (h != defaultHandler) {
                        throw new KafkaException("Ambiguous methods for payload type: " + type + ": "
                                + result.method.getName() + " and " + h.method.getName());
                    }
                    continue;
                }
                result = h;
            }
        }
        if (result == null) {
            result = defaultHandler;
        }
        if (result == null) {
            throw new KafkaException("No method found for " + type);
        }
        return result;
    }

    /** The payload parameter to validate, with its hints (validation groups). */
    private record Validated(int index, Object[] hints, MethodParameter parameter) {}

    private Validated validated;
    /** Per partition: the offset of the last call and how many calls it had (the container retries on one thread). */
    private final Map<TopicPartition, long[]> attempts = new ConcurrentHashMap<>();
    /** The delivery attempt of the record being handled on this thread (Spring Kafka's kafka_deliveryAttempt). */
    static final ThreadLocal<Integer> ATTEMPT = new ThreadLocal<>();

    private volatile Validator validator;

    /**
     * The validator Spring Kafka would use (the one a {@code KafkaListenerConfigurer} sets on the registrar); without
     * one, {@code @Valid} validates nothing, as in Spring Kafka.
     */
    void validateWith(Validator validator) {
        this.validator = validator;
        if (handlers != null) {
            handlers.forEach(h -> h.validateWith(validator));
        }
    }

    /** As Spring's {@code PayloadMethodArgumentResolver.validate}: errors throw MethodArgumentNotValidException. */
    private void validate(Object[] args, ConsumerRecord<Object, Object> record) {
        Validated v = validated;
        Validator validator = this.validator;
        if (v == null || validator == null || args[v.index()] == null) {
            return;
        }
        Object target = args[v.index()];
        BeanPropertyBindingResult errors =
                new BeanPropertyBindingResult(target, v.parameter().getParameterName());
        if (v.hints().length > 0 && validator instanceof SmartValidator smart) {
            smart.validate(target, errors, v.hints());
        } else {
            validator.validate(target, errors);
        }
        if (errors.hasErrors()) {
            throw new MethodArgumentNotValidException(
                    MessageBuilder.withPayload(target).build(), v.parameter(), errors);
        }
    }

    private static String where(Parameter p, int index) {
        return "parameter " + (index + 1) + " (" + p.getParameterizedType().getTypeName() + " " + p.getName() + ")";
    }

    /** What the data parameter is: a record, a payload or a message, alone or (a batch) in a list. */
    private record Data(boolean batch, boolean records, boolean message, JavaType payload) {
        ListenerArgument argument(String group) {
            if (records) {
                return new ListenerArgument.Records(batch);
            }
            return message ? new ListenerArgument.Message(group) : new ListenerArgument.Payload(batch);
        }
    }

    /**
     * The validation hints of a {@code @Valid} / {@code @Validated} (or any {@code @Valid...}) annotation on the
     * parameter, as Spring's {@code PayloadMethodArgumentResolver} determines them; null when it has none.
     */
    private static Object[] validationHints(Parameter p) {
        for (Annotation a : p.getAnnotations()) {
            Object[] hints = ValidationAnnotationUtils.determineValidationHints(a);
            if (hints != null) {
                return hints;
            }
        }
        return null;
    }

    /**
     * Spring Kafka's synthetic headers that this starter has no value for: refused at start (in Spring they are
     * always present, so a method would fail every record here).
     */
    private static final Map<String, String> UNSUPPORTED_HEADERS = Map.of(
            KafkaHeaders.ACKNOWLEDGMENT,
                    "take an Acknowledgment parameter (with spring.kafka.listener.ack-mode=MANUAL)",
            KafkaHeaders.CONSUMER, "the Consumer is the container's; seek with GroupKeeperSeekAware",
            KafkaHeaders.RAW_DATA, "take ConsumerRecord<K, V> as the data parameter",
            KafkaHeaders.NATIVE_HEADERS, "take ConsumerRecord<K, V> and read record.headers()",
            KafkaHeaders.BATCH_CONVERTED_HEADERS, "take List<ConsumerRecord<K, V>> and read each record's headers()",
            KafkaHeaders.LISTENER_INFO, "@GroupKeeperListener has no info attribute",
            KafkaHeaders.CONVERSION_FAILURES,
                    "a value that does not convert is dead-lettered as a deserialization " + "failure",
            KafkaHeaders.RECORD_METADATA, "take ConsumerRecordMetadata or ConsumerRecord<K, V>");

    private static Data data(Parameter p, String name, String where) {
        Class<?> type = p.getType();
        Type generic = p.getParameterizedType();
        Payload payloadAnnotation = p.getAnnotation(Payload.class);
        if (payloadAnnotation != null
                && !(payloadAnnotation.value().isEmpty()
                        && payloadAnnotation.expression().isEmpty())) {
            throw unsupported(
                    name,
                    where,
                    "@Payload with an expression is not supported; take the payload and "
                            + "compute from it in the method");
        }
        String springKafka = type.getName();
        if (springKafka.equals("org.apache.kafka.clients.consumer.Consumer")) {
            throw unsupported(
                    name,
                    where,
                    type.getSimpleName() + " is not supported: offsets are committed by the "
                            + "container (groupkeeper.listener.commit-interval)");
        }
        if (type == ConsumerRecords.class) {
            throw unsupported(name, where, "ConsumerRecords is not supported; take a List");
        }
        if (type == ConsumerRecord.class) {
            return new Data(false, true, false, PayloadDeserializer.JSON.constructType(Object.class));
        }
        if (type == Message.class) {
            return new Data(false, false, true, typeArgument(generic, name, where, "Message"));
        }
        if (type == List.class) {
            JavaType element = typeArgument(generic, name, where, "List");
            if (element.getRawClass() == ConsumerRecord.class) {
                return new Data(true, true, false, PayloadDeserializer.JSON.constructType(Object.class));
            }
            if (element.getRawClass() == Message.class) {
                throw unsupported(
                        name,
                        where,
                        "List<Message<T>> is not supported; take List<T> or " + "List<ConsumerRecord<K, V>>");
            }
            return new Data(true, false, false, element);
        }
        if (springKafka.startsWith("org.springframework.") || springKafka.startsWith("org.apache.kafka.")) {
            throw unsupported(
                    name,
                    where,
                    type.getName() + " is not a parameter kind @GroupKeeperListener resolves "
                            + "(it would be read as a JSON payload)");
        }
        return new Data(
                false,
                false,
                false,
                PayloadDeserializer.JSON.constructType(
                        ClassUtils.resolvePrimitiveIfNecessary(type) == type
                                ? generic
                                : ClassUtils.resolvePrimitiveIfNecessary(type)));
    }

    private static JavaType typeArgument(Type generic, String name, String where, String of) {
        if (!(generic instanceof ParameterizedType p)) {
            throw unsupported(name, where, "a raw " + of + "; declare its type argument");
        }
        return PayloadDeserializer.JSON.constructType(p.getActualTypeArguments()[0]);
    }

    private static ListenerArgument header(
            Header h, Parameter p, MethodParameter mp, boolean batch, String group, String where) {
        String name = !h.name().isEmpty() ? h.name() : h.value();
        if (name.isEmpty()) {
            throw new IllegalStateException("@GroupKeeperListener method " + where + ": @Header needs a name");
        }
        if (KafkaHeaders.DELIVERY_ATTEMPT.equals(name) && batch) {
            throw new IllegalStateException("@GroupKeeperListener method " + where + ": @Header(\"" + name + "\") is "
                    + "for record listeners (as in Spring Kafka)");
        }
        String refused = UNSUPPORTED_HEADERS.get(name);
        if (refused != null) {
            throw new IllegalStateException("@GroupKeeperListener method " + where + ": @Header(\"" + name
                    + "\") is not supported: " + refused);
        }
        String defaultValue = ValueConstants.DEFAULT_NONE.equals(h.defaultValue()) ? null : h.defaultValue();
        boolean list = batch && List.class.isAssignableFrom(p.getType()); // one value per record of the batch
        TypeDescriptor target = list ? new TypeDescriptor(mp).getElementTypeDescriptor() : new TypeDescriptor(mp);
        if (target == null) {
            target = TypeDescriptor.valueOf(Object.class);
        }
        return new ListenerArgument.HeaderValue(name, group, target, list, h.required(), defaultValue, where);
    }

    private static IllegalStateException unsupported(String method, String where, String why) {
        return new IllegalStateException("@GroupKeeperListener method " + method + " has an unsupported signature: "
                + where + ": " + why + ". A listener takes one data parameter (ConsumerRecord<K, V>, the payload, "
                + "Message<T>, or a List of records or payloads for a batch) and any @Header / @Headers parameters");
    }

    static String describe(Method m) {
        List<String> params = new ArrayList<>();
        for (Type t : m.getGenericParameterTypes()) {
            params.add(t.getTypeName());
        }
        return m.getDeclaringClass().getName() + "." + m.getName() + "(" + String.join(", ", params) + ")";
    }

    boolean batch() {
        return batch;
    }

    /**
     * The value deserializer for this method's container: {@code configured}, followed by the conversion into the
     * declared payload type unless the method takes raw records ({@code ConsumerRecord<K, V>}: values stay as
     * {@code configured} produces them).
     */
    Deserializer<Object> valueDeserializer(Deserializer<Object> configured) {
        return valueDeserializer(configured, PayloadJson.DEFAULT);
    }

    /** The same, reading JSON with {@code json} (the application's mapper, {@link PayloadJson#select}). */
    Deserializer<Object> valueDeserializer(Deserializer<Object> configured, PayloadJson json) {
        return PayloadDeserializer.passThrough(payload)
                ? configured
                : new PayloadDeserializer(configured, payload, json);
    }

    /**
     * Whether the record values this method's handler sees are the configured value deserializer's own (as Spring
     * Kafka's {@code RecordFilterStrategy} sees them): no conversion, or an identity one (String from
     * {@code StringDeserializer}, byte[] from {@code ByteArrayDeserializer}).
     */
    boolean valuesAsDeserialized(Class<?> valueDeserializer) {
        return valuesAsDeserialized(valueDeserializer, PayloadJson.DEFAULT);
    }

    /** The same when payloads are read with {@code json} (a JSON converter's reads String payloads as JSON too). */
    boolean valuesAsDeserialized(Class<?> valueDeserializer, PayloadJson json) {
        Class<?> raw = payload.getRawClass();
        return PayloadDeserializer.passThrough(payload)
                || raw == String.class && !json.jsonStrings() && valueDeserializer == StringDeserializer.class
                || raw == byte[].class && valueDeserializer == ByteArrayDeserializer.class;
    }

    RecordHandler<Object, Object> recordHandler() {
        return r -> invoke(List.of(r));
    }

    BatchHandler<Object, Object> batchHandler() {
        return this::invoke;
    }

    private void invoke(List<ConsumerRecord<Object, Object>> records) throws Exception {
        if (handlers != null) {
            handlerFor(records.get(0).value()).invoke(records);
            return;
        }
        if (!batch) { // the delivery attempt of this record (1, 2, ... while the error policy retries it)
            ConsumerRecord<Object, Object> r = records.get(0);
            long[] last = attempts.compute(
                    new TopicPartition(r.topic(), r.partition()),
                    (tp, was) -> was != null && was[0] == r.offset()
                            ? new long[] {r.offset(), was[1] + 1}
                            : new long[] {r.offset(), 1});
            ATTEMPT.set((int) last[1]);
        }
        Object[] args = new Object[arguments.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = arguments.get(i).resolve(records);
        }
        validate(args, records.get(0));
        Object result;
        try {
            result = method.invoke(bean, args);
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
        SendToReplies r = replies;
        if (r != null) {
            r.reply(records.get(0), result);
        }
    }

    /** {@code @SendTo}'s topic as resolved at start ("" = the record's reply-topic header), or null without it. */
    private volatile String sendTo;

    private volatile SendToReplies replies;

    void sendTo(String topic) {
        if (handlers != null) {
            throw new IllegalStateException(
                    "@GroupKeeperListener class " + bean.getClass().getName() + ": @SendTo on "
                            + "a class-level listener is not supported: put the method in a @GroupKeeperListener method with "
                            + "@SendTo");
        }
        if (batch) {
            throw new IllegalStateException("@GroupKeeperListener method " + describe(method) + ": @SendTo on a batch "
                    + "listener is not supported yet: send the replies in the method with a KafkaTemplate");
        }
        if (topic.startsWith("!{")) {
            throw new IllegalStateException("@GroupKeeperListener method " + describe(method) + ": @SendTo with a "
                    + "runtime expression (!{...}) is not supported: return a Message<?> with KafkaHeaders.TOPIC");
        }
        this.sendTo = topic;
    }

    /** The {@code @SendTo} topic, or null (a class-level listener: "" when one of its handlers has one). */
    String sendTo() {
        if (handlers != null) {
            return handlers.stream().anyMatch(h -> h.sendTo != null) ? "" : null;
        }
        return sendTo;
    }

    void replyWith(KafkaTemplate<Object, Object> template) {
        if (handlers != null) { // each @KafkaHandler with @SendTo replies to its own topic
            handlers.stream().filter(h -> h.sendTo != null).forEach(h -> h.replyWith(template));
            return;
        }
        this.replies = new SendToReplies(sendTo, template);
    }

    /** Whether a parameter takes the transactional sender (the listener must be transactional). */
    public boolean takesSender() {
        return handlers != null
                ? handlers.stream().anyMatch(ListenerMethod::takesSender)
                : arguments.stream().anyMatch(a -> a instanceof ListenerArgument.Sender);
    }

    /** Whether a parameter takes Spring Kafka's {@code Acknowledgment} (the ack mode must be manual). */
    boolean takesAcknowledgment() {
        return handlers != null
                ? handlers.stream().anyMatch(ListenerMethod::takesAcknowledgment)
                : arguments.stream().anyMatch(a -> a instanceof ListenerArgument.Ack);
    }

    /** The bean whose method this is. */
    public Object bean() {
        return bean;
    }

    @Override
    public String toString() {
        return handlers != null
                ? AopUtils.getTargetClass(bean).getName() + " (@KafkaHandler methods)"
                : describe(method);
    }
}
