// gophercloud's side of bench/sdk-compare.ts: authenticate, then list one project's servers as admin.
//
// Usage: gophercloud_list CLOUD PROJECT_ID ROUNDS [COMPUTE_MICROVERSION], with OS_CLIENT_CONFIG_FILE naming the
// clouds.yaml. Without a microversion gophercloud sends none, so Nova answers at 2.1.
// Prints one JSON line: wall time (ms) of each round after start-up, servers listed, HTTP requests made.
// Requests are counted at the http.RoundTripper, which every gophercloud call goes through.
package main

import (
	"encoding/json"
	"fmt"
	"io/ioutil"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud"
	"github.com/gophercloud/gophercloud/openstack"
	"github.com/gophercloud/gophercloud/openstack/compute/v2/servers"
	"gopkg.in/yaml.v2"
)

// cloud is the part of a clouds.yaml entry a password login reads.
type cloud struct {
	Auth struct {
		AuthURL           string `yaml:"auth_url"`
		Username          string `yaml:"username"`
		Password          string `yaml:"password"`
		UserDomainName    string `yaml:"user_domain_name"`
		ProjectName       string `yaml:"project_name"`
		ProjectDomainName string `yaml:"project_domain_name"`
	} `yaml:"auth"`
	RegionName string `yaml:"region_name"`
}

// counting counts the requests that pass through it.
type counting struct {
	next     http.RoundTripper
	requests int64
}

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	atomic.AddInt64(&c.requests, 1)
	return c.next.RoundTrip(req)
}

func main() {
	if len(os.Args) < 4 || len(os.Args) > 5 {
		fail(fmt.Errorf("usage: %s CLOUD PROJECT_ID ROUNDS [COMPUTE_MICROVERSION]", os.Args[0]))
	}
	name, projectID, microversion := os.Args[1], os.Args[2], ""
	if len(os.Args) == 5 {
		microversion = os.Args[4]
	}
	rounds, err := strconv.Atoi(os.Args[3])
	check(err)
	c := readCloud(os.Getenv("OS_CLIENT_CONFIG_FILE"), name)
	opts := gophercloud.AuthOptions{
		IdentityEndpoint: c.Auth.AuthURL,
		Username:         c.Auth.Username,
		Password:         c.Auth.Password,
		DomainName:       c.Auth.UserDomainName,
		Scope:            &gophercloud.AuthScope{ProjectName: c.Auth.ProjectName, DomainName: c.Auth.ProjectDomainName},
	}

	times := []float64{}
	listed := 0
	var counter *counting
	for i := 0; i < rounds; i++ {
		// A fresh connection pool each round, as a new process would have.
		counter = &counting{next: http.DefaultTransport.(*http.Transport).Clone()}
		start := time.Now()
		provider, err := openstack.NewClient(opts.IdentityEndpoint)
		check(err)
		provider.HTTPClient = http.Client{Transport: counter}
		check(openstack.Authenticate(provider, opts))
		compute, err := openstack.NewComputeV2(provider, gophercloud.EndpointOpts{Region: c.RegionName})
		check(err)
		compute.Microversion = microversion
		pages, err := servers.List(compute, servers.ListOpts{AllTenants: true, TenantID: projectID}).AllPages()
		check(err)
		all, err := servers.ExtractServers(pages)
		check(err)
		listed = len(all)
		times = append(times, float64(time.Since(start).Microseconds())/1000)
		counter.next.(*http.Transport).CloseIdleConnections()
	}
	out, err := json.Marshal(map[string]interface{}{"ms": times, "servers": listed, "requests": counter.requests})
	check(err)
	fmt.Println(string(out))
}

func readCloud(path, name string) cloud {
	text, err := ioutil.ReadFile(path)
	check(err)
	var file struct {
		Clouds map[string]cloud `yaml:"clouds"`
	}
	check(yaml.Unmarshal(text, &file))
	c, ok := file.Clouds[name]
	if !ok {
		fail(fmt.Errorf("%s has no cloud %q", path, name))
	}
	return c
}

func check(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gophercloud_list:", err)
	os.Exit(1)
}
