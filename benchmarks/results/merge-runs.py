import json,sys
ab=json.load(open(sys.argv[1])); cd=json.load(open(sys.argv[2])); out=sys.argv[3]
bykey={s['key']:s for s in cd['subjects']}
for s in ab['subjects']:
    o=bykey.get(s['key'])
    if o and 'scenarios' in o:
        s.setdefault('scenarios',{}).update(o['scenarios'])
        s['seconds']=s.get('seconds',0)+o.get('seconds',0)
ab['summary'].update({k:v for k,v in cd['summary'].items() if k not in ab['summary']})
ab['mode']='reduced: a,b x10 (+1 warm-up) and c,d x3'
ab['command']=ab['command']+' ; '+cd['command']
ab['scenarios']=ab['scenarios']+cd['scenarios']
ab['wallSeconds']=ab['wallSeconds']+cd['wallSeconds']
ab['producedRecords']=ab['producedRecords']+cd['producedRecords']
ab['mergedFrom']=[sys.argv[1],sys.argv[2]]
ab['rttMsCd']=cd['rttMs']
json.dump(ab,open(out+'/sidebyside.json','w'),indent=2)
