package io.groupkeeper.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code @GroupKeeperListener} method parameter ({@code long} or {@code OptionalLong}) that receives the
 * fencing token of the partition being handled (see {@code HandlerContext.fencingToken()}): pass it with every write to
 * a store that checks it, so that a former owner's late write is refused (docs/exactly-once.md). A {@code long}
 * parameter fails the call when the member no longer owns the partition (there is nothing it may write then).
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencingToken {}
