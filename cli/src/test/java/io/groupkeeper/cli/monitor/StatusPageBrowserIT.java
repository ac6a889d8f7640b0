package io.groupkeeper.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.SharedServers;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The monitor's status page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * driven by Selenium pointed at them explicitly: Selenium Manager never downloads anything). Skipped, with a message,
 * only where those binaries are absent ({@code apt-get install -y chromium chromium-driver}; {@code .ci/run} does it).
 */
@ExtendWith(SharedServers.class)
class StatusPageBrowserIT extends MonitorTestSupport {

    private static final File CHROMIUM = new File("/usr/bin/chromium");
    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");
    private static WebDriver browser;
    private static Path profile;

    @BeforeAll
    static void openBrowser() throws Exception {
        assumeTrue(
                CHROMIUM.canExecute() && CHROMEDRIVER.canExecute(),
                "no browser here: " + CHROMIUM + " and " + CHROMEDRIVER
                        + " are needed (apt-get install -y chromium chromium-driver)");
        profile = Files.createTempDirectory("gk-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.getPath());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER)
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void closeBrowser() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void theStatusPageListsARunningGroupWithItsStatusAndItsGroupPageChartsItsLag() throws Exception {
        String topic = unique("browse");
        SharedServers.kafka().createTopic(topic, 2);
        MonitorIT.produce(SharedServers.bootstrap(), topic, 2, 10);
        String ns = unique("ns");
        String group = unique("payments");
        GroupMember m = member(SharedServers.zk(), ns, group, topic, 2, "app-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> m.assignment().size() == 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        for (long o = 1; o <= 3; o++) {
            assertThat(m.commit(Map.of(p0, o, p1, o), Map.of(p0, 10L, p1, 10L)).allCommitted())
                    .isTrue();
        }
        Monitor monitor = monitor(SharedServers.zk(), ns, SharedServers.bootstrap(), Duration.ofSeconds(10));
        String base = "http://127.0.0.1:" + monitor.port();

        // The page reloads itself every sampling interval (meta refresh): every read below re-finds its elements.
        browser.get(base + "/");
        assertThat(browser.getTitle()).isEqualTo("groupkeeper monitor");
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            WebElement row = browser.findElement(By.cssSelector("tr.group[data-group='" + group + "']"));
            assertThat(row.findElement(By.cssSelector("td.status")).getText()).isEqualTo("OK");
            assertThat(row.getText()).contains(group, "STABLE");
        });

        // The group page, once the monitor holds a few samples: members, owners, offsets and a chart with points.
        long samples = monitor.state().samples();
        await().atMost(Duration.ofSeconds(30)).until(() -> monitor.state().samples() >= samples + 2);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            if (!browser.getTitle().startsWith("group " + group)) {
                browser.findElement(By.cssSelector("tr.group[data-group='" + group + "']"))
                        .findElement(By.linkText(group))
                        .click();
            }
            assertThat(browser.getTitle()).startsWith("group " + group);
            assertThat(browser.getCurrentUrl()).isEqualTo(base + "/group/" + group);
        });
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("group-status")).getText()).isEqualTo("OK");
            assertThat(browser.findElement(By.id("members")).getText()).contains(m.memberId(), "app-1");
            WebElement partition0 =
                    browser.findElement(By.cssSelector("tr.partition[data-partition='" + topic + ":0']"));
            assertThat(partition0.getText()).contains(m.memberId(), "3", "10", "7");
            assertThat(browser.findElement(By.id("lag-chart")).isDisplayed()).isTrue();
            // (a level line has an empty bounding box, which Selenium calls "not displayed": its points are checked)
            WebElement line = browser.findElement(By.cssSelector("svg#lag-chart polyline.lag-records"));
            String points = line.getDomAttribute("points");
            assertThat(points.trim().split("\\s+"))
                    .hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy(pt -> assertThat(pt).matches("\\d+(\\.\\d+)?,\\d+(\\.\\d+)?"));
        });
    }
}
