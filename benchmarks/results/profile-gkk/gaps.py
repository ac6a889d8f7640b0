# p50 of each step and of the gaps between steps of groupkeeper over Kafka, from sidebyside.json (run: python3 gaps.py DIR)
import json, statistics as st, sys
d = json.load(open(sys.argv[1] + '/sidebyside.json'))
print('raw ZooKeeper write RTT p50 %.2f ms; load average at start %.2f, at end %.2f' % (d['rttMs'], d['machine']['loadAverageAtStart'], d['loadAverageAtEnd']))
for s in d['subjects']:
    if s['key'] != 'groupkeeper-kafka':
        continue
    for sc, r in s['scenarios'].items():
        rows = [dict(rep['phasesMs'], publish=rep['publishMs'], owned=rep['ownedMs'], total=rep['totalMs']) for rep in r['reps']]
        keys = ['connected', 'membership', 'started', 'publish', 'revoked', 'released', 'zk-claimed', 'owned', 'total']
        print('%s (n=%d), p50 ms from the event: %s' % (sc, len(rows), ', '.join('%s %.1f' % (k, st.median([x[k] for x in rows if k in x])) for k in keys if any(k in x for x in rows))))
        chain = ['membership', 'publish', 'revoked', 'released', 'zk-claimed', 'owned', 'total'] if sc == 'scale-out' else ['membership', 'publish', 'zk-claimed', 'owned', 'total']
        gaps = []
        for a, b in zip(chain, chain[1:]):
            v = [x[b] - x[a] for x in rows if a in x and b in x]
            if v:
                gaps.append('%s -> %s %.1f' % (a, b, st.median(v)))
        print('  p50 of the gaps: ' + ', '.join(gaps))
