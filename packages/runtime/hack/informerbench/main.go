// informerbench: the client-go reference figures for kubegen's `npm run bench:scale`. It syncs one shared informer
// on Foos (samplecontroller.k8s.io/v1alpha1) made by k8s.io/sample-controller's generated informer factory (resync
// 0, no event handlers), then prints one JSON line and exits:
//
//	seconds      from factory.Start to HasSynced (polled every millisecond)
//	objects      Foos in the informer's store
//	heapAllocMB  runtime.MemStats.HeapAlloc after runtime.GC() (live heap, the informer still referenced)
//	heapInuseMB  HeapInuse after that GC; sysMB: Sys (everything the Go runtime got from the OS)
//	rssMB        VmRSS after sync (and after the GC); peakRssMB: VmHWM (both from /proc/self/status)
//
// hack/setup-envtest.sh (packages/runtime/hack, next to this folder) copies this file into the kubernetes 1.20.2 source tree (cmd/informerbench) and builds it
// with the tree's vendored client-go and sample-controller into $KUBEBUILDER_ASSETS/informerbench.
//
// Usage: informerbench -kubeconfig FILE [-namespace NS] [-timeout 10m]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientset "k8s.io/sample-controller/pkg/generated/clientset/versioned"
	informers "k8s.io/sample-controller/pkg/generated/informers/externalversions"
)

type result struct {
	Seconds     float64 `json:"seconds"`
	Objects     int     `json:"objects"`
	HeapAllocMB float64 `json:"heapAllocMB"`
	HeapInuseMB float64 `json:"heapInuseMB"`
	SysMB       float64 `json:"sysMB"`
	RssMB       float64 `json:"rssMB"`
	PeakRssMB   float64 `json:"peakRssMB"`
	GoVersion   string  `json:"goVersion"`
}

// procStatusMB reads VmRSS and VmHWM from /proc/self/status, in MB (NaN-free: 0 when absent).
func procStatusMB() (rss, hwm float64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig")
	namespace := flag.String("namespace", "", "namespace to watch (default: all)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up when not synced by then")
	flag.Parse()
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "usage: informerbench -kubeconfig FILE [-namespace NS]")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client, err := clientset.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
	informer := factory.Samplecontroller().V1alpha1().Foos().Informer()
	stop := make(chan struct{})
	start := time.Now()
	factory.Start(stop)
	deadline := start.Add(*timeout)
	for !informer.HasSynced() {
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "informerbench: not synced before the timeout")
			os.Exit(1)
		}
		time.Sleep(time.Millisecond)
	}
	seconds := time.Since(start).Seconds()
	objects := len(informer.GetStore().ListKeys())
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm := procStatusMB()
	const mb = 1024 * 1024
	out, _ := json.Marshal(result{
		Seconds:     seconds,
		Objects:     objects,
		HeapAllocMB: float64(ms.HeapAlloc) / mb,
		HeapInuseMB: float64(ms.HeapInuse) / mb,
		SysMB:       float64(ms.Sys) / mb,
		RssMB:       rss,
		PeakRssMB:   hwm,
		GoVersion:   runtime.Version(),
	})
	fmt.Println(string(out))
	runtime.KeepAlive(informer)
	close(stop)
}
