package com.example.consumer;

import io.groupkeeper.spring.GroupKeeperListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** What a user writes: an application with one listener method. */
@SpringBootApplication
public class ConsumerApp {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApp.class, args);
    }

    @Component
    public static class Orders {
        public final Queue<String> received = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(group = "starter-consumer", topics = "orders")
        void onOrder(String order) {
            received.add(order);
        }
    }
}
