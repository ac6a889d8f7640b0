package io.groupkeeper.spring.internal;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.kafka.support.converter.BatchMessageConverter;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON mapper of the payload conversion ({@link PayloadDeserializer}), chosen as Spring for Apache Kafka would
 * read the application's payloads:
 * <ol>
 *   <li>the application's JSON record converter (a {@code JsonMessageConverter} / {@code JacksonJsonMessageConverter}
 *   bean, or one inside its {@code BatchMessagingMessageConverter} bean): that converter's own mapper, Jackson 2 or
 *   Jackson 3; and as that converter reads every payload as JSON, {@code String} payloads are read as JSON too
 *   ({@code "\"ABC\""} becomes {@code ABC});</li>
 *   <li>else the application's Jackson 3 {@code JsonMapper} bean ({@code tools.jackson}: Boot 4's, with the
 *   application's {@code spring.jackson.*} and modules; {@code java.time} types built in);</li>
 *   <li>else, with only Jackson 2, the starter's own mapper (modules found on the classpath, unknown properties
 *   ignored), as before.</li>
 * </ol>
 */
abstract class PayloadJson {

    /** The starter's own Jackson 2 mapper. */
    static final PayloadJson DEFAULT = new Jackson2(PayloadDeserializer.JSON, false, "the starter's Jackson 2 mapper");

    private static final String JACKSON3_MAPPER = "tools.jackson.databind.json.JsonMapper";

    /** Reads values of one target type. */
    interface Reader {
        Object read(String text) throws Exception;

        Object read(byte[] bytes) throws Exception;
    }

    private final boolean jsonStrings;
    private final String description;

    PayloadJson(boolean jsonStrings, String description) {
        this.jsonStrings = jsonStrings;
        this.description = description;
    }

    abstract Reader reader(JavaType target);

    /** Whether {@code String} payloads are read as JSON (the application's JSON converter reads them so). */
    boolean jsonStrings() {
        return jsonStrings;
    }

    @Override
    public String toString() {
        return description;
    }

    static PayloadJson select(ListableBeanFactory beans) {
        Object converter = jsonConverter(beans);
        if (converter != null) {
            Object mapper = mapperOf(converter);
            String what = "the mapper of the JSON converter bean ("
                    + converter.getClass().getSimpleName() + ")";
            if (mapper instanceof ObjectMapper m) {
                return new Jackson2(m, true, what);
            }
            if (mapper != null && isJackson3(mapper)) {
                return new Jackson3(mapper, true, what);
            }
        }
        if (ClassUtils.isPresent(JACKSON3_MAPPER, PayloadJson.class.getClassLoader())) {
            Object mapper = Jackson3.bean(beans);
            if (mapper != null) {
                return new Jackson3(mapper, false, "the application's JsonMapper bean (Jackson 3)");
            }
        }
        return DEFAULT;
    }

    /** The application's one JSON record converter (or the record converter of its one batch converter), or null. */
    private static Object jsonConverter(ListableBeanFactory beans) {
        var record = beans.getBeanProvider(RecordMessageConverter.class).getIfUnique();
        if (record == null) {
            var batch = beans.getBeanProvider(BatchMessageConverter.class).getIfUnique();
            record = batch == null ? null : batch.getRecordMessageConverter();
        }
        return record != null
                        && SpringKafkaSettings.isJsonConverter(record.getClass().getName())
                ? record
                : null;
    }

    /** The converter's mapper: Spring Kafka's protected {@code getObjectMapper()} / {@code getJsonMapper()}. */
    private static Object mapperOf(Object converter) {
        for (String name : new String[] {"getObjectMapper", "getJsonMapper"}) {
            Method m = ReflectionUtils.findMethod(converter.getClass(), name);
            if (m != null) {
                ReflectionUtils.makeAccessible(m);
                return ReflectionUtils.invokeMethod(m, converter);
            }
        }
        return null;
    }

    private static boolean isJackson3(Object mapper) {
        return mapper.getClass().getName().startsWith("tools.jackson.");
    }

    private static final class Jackson2 extends PayloadJson {
        private final ObjectMapper mapper;

        Jackson2(ObjectMapper mapper, boolean jsonStrings, String description) {
            super(jsonStrings, description);
            this.mapper = mapper;
        }

        @Override
        Reader reader(JavaType target) {
            return new Reader() {
                @Override
                public Object read(String text) throws Exception {
                    return mapper.readValue(text, target);
                }

                @Override
                public Object read(byte[] bytes) throws Exception {
                    return mapper.readValue(bytes, target);
                }
            };
        }
    }

    /** Jackson 3: only loaded when {@code tools.jackson} is on the classpath. */
    private static final class Jackson3 extends PayloadJson {
        private final tools.jackson.databind.ObjectMapper mapper;

        Jackson3(Object mapper, boolean jsonStrings, String description) {
            super(jsonStrings, description);
            this.mapper = (tools.jackson.databind.ObjectMapper) mapper;
        }

        static Object bean(ListableBeanFactory beans) {
            return beans.getBeanProvider(JsonMapper.class).getIfUnique();
        }

        @Override
        Reader reader(JavaType target) {
            tools.jackson.databind.JavaType type = mapper.getTypeFactory().constructFromCanonical(target.toCanonical());
            return new Reader() {
                @Override
                public Object read(String text) {
                    return mapper.readValue(text, type);
                }

                @Override
                public Object read(byte[] bytes) {
                    return mapper.readValue(bytes, type);
                }
            };
        }
    }
}
